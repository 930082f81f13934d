/**
 * Explicit conversion of speaker (render) frames to the capture format, for
 * a speaker that runs at another rate or channel count than the microphone:
 * WebRTC's AEC compares render and capture sample by sample, so both must
 * share one format. Mixes to mono, resamples (the project's sinc resampler,
 * whose look-ahead delays the render by a few ms: the delay-agnostic AEC
 * absorbs that), and re-chunks into 10 ms capture-format frames.
 */
import { Resampler, floatToInt16, int16ToFloat, mixToMono } from '../audio/index.js';
import type { ApmFormat } from './apm.js';

export class RenderConverter {
  private readonly resampler: Resampler | undefined;
  private pending = new Float32Array(0);
  private readonly framePerChannel: number;

  constructor(
    private readonly from: ApmFormat,
    private readonly to: ApmFormat,
  ) {
    this.resampler = from.sampleRate === to.sampleRate ? undefined : new Resampler(from.sampleRate, to.sampleRate);
    this.framePerChannel = to.sampleRate / 100;
  }

  /** One render frame in; zero or more 10 ms capture-format frames out. */
  push(frame: Int16Array): Int16Array[] {
    const mono = this.from.channels === 1 ? int16ToFloat(frame) : mixToMono(frame, this.from.channels);
    const converted = this.resampler ? this.resampler.push(mono) : mono;
    const joined = new Float32Array(this.pending.length + converted.length);
    joined.set(this.pending);
    joined.set(converted, this.pending.length);
    const frames: Int16Array[] = [];
    let start = 0;
    for (; start + this.framePerChannel <= joined.length; start += this.framePerChannel) {
      frames.push(this.spread(floatToInt16(joined.subarray(start, start + this.framePerChannel))));
    }
    this.pending = joined.slice(start);
    return frames;
  }

  /** Mono to the capture's channel count: the same signal on each channel. */
  private spread(mono: Int16Array): Int16Array {
    const channels = this.to.channels;
    if (channels === 1) return mono;
    const out = new Int16Array(mono.length * channels);
    for (let i = 0; i < mono.length; i++) for (let c = 0; c < channels; c++) out[i * channels + c] = mono[i]!;
    return out;
  }
}
