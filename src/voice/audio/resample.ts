/**
 * Sample-rate conversion by a Kaiser-windowed sinc (see sinc-table.ts): the
 * low-pass both removes what would alias when downsampling (48 kHz -> 16 kHz
 * must drop 8..24 kHz) and the images when upsampling. Linear interpolation
 * would be simpler but aliases audibly and dulls consonants, which costs
 * recognition more than the ~150 multiply-adds per output sample cost here.
 *
 * `Resampler` streams (a device hands chunks of any size); the filter is
 * centred, so each push returns what can be computed and holds back
 * `halfTaps` input samples of look-ahead until the next push or `flush`.
 */
import { AppError } from '../../errors/index.js';
import { SAMPLE_RATE } from '../types.js';
import { floatToInt16, int16ToFloat, mixToMono } from './pcm.js';
import { buildSincTable, gcd, type SincTable } from './sinc-table.js';

export class Resampler {
  readonly fromRate: number;
  readonly toRate: number;
  private readonly up: number;
  private readonly down: number;
  private readonly table: SincTable;
  private history = new Float32Array(0);
  /** Absolute input index of history[0]; negative indices are the zeros before the start. */
  private historyStart = 0;
  private historyLength = 0;
  private received = 0;
  /** Position of the next output, in input samples: whole + frac / up. */
  private whole = 0;
  private frac = 0;

  constructor(fromRate: number, toRate: number) {
    for (const rate of [fromRate, toRate]) {
      if (!Number.isInteger(rate) || rate <= 0) throw new AppError('AUDIO_FORMAT_INVALID', `sample rate ${rate} is not a positive integer`);
    }
    this.fromRate = fromRate;
    this.toRate = toRate;
    const g = gcd(fromRate, toRate);
    this.up = toRate / g;
    this.down = fromRate / g;
    this.table = buildSincTable(fromRate, toRate, this.up);
    this.restart();
  }

  /** Converts the next chunk; the output lags by the filter's look-ahead. */
  push(input: Float32Array): Float32Array {
    this.append(input);
    this.received += input.length;
    return this.produce(this.received);
  }

  /** The remaining output (the input ends in silence); then starts afresh. */
  flush(): Float32Array {
    const end = this.received;
    this.append(new Float32Array(this.table.halfTaps + 1));
    const out = this.produce(end + this.table.halfTaps + 1, end);
    this.restart();
    return out;
  }

  private restart(): void {
    const { halfTaps } = this.table;
    this.history = new Float32Array(4096 + 2 * halfTaps);
    this.historyStart = -(halfTaps - 1);
    this.historyLength = halfTaps - 1;
    this.received = 0;
    this.whole = 0;
    this.frac = 0;
  }

  private append(input: Float32Array): void {
    const needed = this.historyLength + input.length;
    if (needed > this.history.length) {
      const grown = new Float32Array(Math.max(needed, this.history.length * 2));
      grown.set(this.history.subarray(0, this.historyLength));
      this.history = grown;
    }
    this.history.set(input, this.historyLength);
    this.historyLength = needed;
  }

  /** Outputs whose taps lie below `available`, and (on flush) whose position lies below `endPosition`. */
  private produce(available: number, endPosition = Infinity): Float32Array {
    const { halfTaps, phases, weights } = this.table;
    const taps = 2 * halfTaps;
    const bound = Math.ceil(((available - this.whole + 1) * this.up) / this.down) + 1;
    const out = new Float32Array(Math.max(0, bound));
    let count = 0;
    for (;;) {
      let base = this.whole;
      let row = phases === this.up ? this.frac : Math.round((this.frac * phases) / this.up);
      if (row === phases) {
        row = 0;
        base += 1;
      }
      if (base + halfTaps >= available || this.whole + this.frac / this.up >= endPosition) break;
      const first = base - halfTaps + 1 - this.historyStart;
      let sum = 0;
      for (let t = 0; t < taps; t++) sum += this.history[first + t]! * weights[row * taps + t]!;
      out[count++] = sum;
      this.frac += this.down;
      this.whole += Math.floor(this.frac / this.up);
      this.frac %= this.up;
    }
    this.discardBefore(this.whole - halfTaps + 1);
    return out.subarray(0, count);
  }

  private discardBefore(index: number): void {
    const drop = Math.min(index - this.historyStart, this.historyLength);
    if (drop <= 0) return;
    this.history.copyWithin(0, drop, this.historyLength);
    this.historyLength -= drop;
    this.historyStart += drop;
  }
}

/** Converts a whole signal at once. */
export function resample(samples: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return samples.slice();
  const resampler = new Resampler(fromRate, toRate);
  const head = resampler.push(samples);
  const tail = resampler.flush();
  const out = new Float32Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

/** Any WAV-like PCM to the voice's format: 16 kHz mono int16. */
export function toVoiceFormat(interleaved: Int16Array, sampleRate: number, channels: number): Int16Array {
  if (channels === 1 && sampleRate === SAMPLE_RATE) return interleaved.slice();
  return floatToInt16(resample(mixToMono(interleaved, channels), sampleRate, SAMPLE_RATE));
}

/** The voice's 16 kHz mono to another rate (a device that only plays 48 kHz). */
export function fromVoiceFormat(samples: Int16Array, sampleRate: number): Int16Array {
  if (sampleRate === SAMPLE_RATE) return samples.slice();
  return floatToInt16(resample(int16ToFloat(samples), SAMPLE_RATE, sampleRate));
}
