/**
 * Device chunks (any rate, any channel count, any size) to the voice's
 * frames: 16 kHz mono, FRAME_SAMPLES each, numbered from 0 and stamped with
 * when their first sample was captured (see capture-clock.ts).
 */
import { Resampler, floatToInt16, int16ToFloat, mixToMono } from '../audio/index.js';
import { FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE, type AudioFrame } from '../types.js';
import { CaptureClock } from './capture-clock.js';

export class FrameAssembler {
  readonly clock: CaptureClock;
  private readonly channels: number;
  private readonly resampler: Resampler | undefined;
  private readonly pending = new Int16Array(FRAME_SAMPLES);
  private pendingLength = 0;
  /** Device sample frames (one per channel set) received so far. */
  private received = 0;
  private nextIndex = 0;
  private lastAtMs = Number.NEGATIVE_INFINITY;

  constructor(deviceRate: number, channels: number, clockWindowMs?: number) {
    this.clock = new CaptureClock(deviceRate, clockWindowMs);
    this.channels = channels;
    this.resampler = deviceRate === SAMPLE_RATE ? undefined : new Resampler(deviceRate, SAMPLE_RATE);
  }

  /** Frames completed by an interleaved chunk that arrived at `arrivalMs`. */
  push(interleaved: Int16Array, arrivalMs: number): AudioFrame[] {
    const deviceFrames = Math.floor(interleaved.length / this.channels);
    this.received += deviceFrames;
    this.clock.observe(arrivalMs, this.received);
    return this.slice(this.toVoiceRate(interleaved.subarray(0, deviceFrames * this.channels)));
  }

  private toVoiceRate(interleaved: Int16Array): Int16Array {
    if (this.channels === 1 && !this.resampler) return interleaved;
    const mono = this.channels === 1 ? int16ToFloat(interleaved) : mixToMono(interleaved, this.channels);
    return floatToInt16(this.resampler ? this.resampler.push(mono) : mono);
  }

  private slice(samples: Int16Array): AudioFrame[] {
    const frames: AudioFrame[] = [];
    let offset = 0;
    while (offset < samples.length) {
      const take = Math.min(FRAME_SAMPLES - this.pendingLength, samples.length - offset);
      this.pending.set(samples.subarray(offset, offset + take), this.pendingLength);
      this.pendingLength += take;
      offset += take;
      if (this.pendingLength === FRAME_SAMPLES) {
        frames.push(this.stamp(this.pending.slice()));
        this.pendingLength = 0;
      }
    }
    return frames;
  }

  private stamp(samples: Int16Array): AudioFrame {
    const index = this.nextIndex++;
    // Output sample n of the (centred) resampler is input time n / 16000 s.
    const firstDeviceSample = (index * FRAME_MS * this.clock.sampleRate) / 1000;
    // A better (earlier) origin found later could step a time back; consumers order by atMs, so keep it rising.
    const atMs = Math.max(this.clock.timeOf(firstDeviceSample), this.lastAtMs + 0.001);
    this.lastAtMs = atMs;
    return { samples, index, atMs };
  }
}
