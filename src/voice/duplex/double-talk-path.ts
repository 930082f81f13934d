/**
 * The barge-in detector's second look at the microphone while the
 * assistant plays: its own APM, set to suppress less (so the onset of a
 * voice over loud echo survives, and so does some echo), its own VAD state
 * on that output, and the DoubleTalkMeter on the raw mic and render, which
 * says whether what the VAD hears can be echo at all.
 */
import type { Apm } from '../apm/index.js';
import type { Vad } from '../types.js';
import type { DoubleTalkWindow } from './barge-in-rule.js';
import { BandDoubleTalkMeter } from './band-double-talk-meter.js';
import type { EchoExcessMeter } from './double-talk-meter.js';


export class DoubleTalkPath {
  private readonly pending: Int16Array;
  private pendingLength = 0;
  /** Excess per 10 ms frame, from frame `firstFrame` on. */
  private excess: number[] = [];
  private firstFrame = 0;
  private scoredSamples = 0;

  constructor(
    private readonly apm: Apm,
    private readonly vad: Vad,
    maxFrameSamples: number,
    private readonly meter: EchoExcessMeter = new BandDoubleTalkMeter(),
  ) {
    this.pending = new Int16Array(vad.frameSamples + maxFrameSamples);
  }

  /** One APM frame (10 ms) of mic and the render played with it, `silence` when nothing plays. */
  feed(mic: Int16Array, render: Int16Array, playing: boolean): void {
    this.apm.processRender(render);
    const cancelled = this.apm.processCapture(mic);
    this.pending.set(cancelled, this.pendingLength);
    this.pendingLength += mic.length;
    this.excess.push(this.meter.push(mic, playing ? render : null, cancelled));
  }

  /** Scores the next VAD window; called in step with the main path, which has the same samples pending. */
  async nextWindow(): Promise<DoubleTalkWindow> {
    const w = this.vad.frameSamples;
    const window = this.pending.slice(0, w);
    this.pending.copyWithin(0, w, this.pendingLength);
    this.pendingLength -= w;
    const apmFrame = this.apm.frameSamples;
    const from = Math.floor(this.scoredSamples / apmFrame);
    const to = Math.floor((this.scoredSamples + w - 1) / apmFrame);
    this.scoredSamples += w;
    let excessDb = -Infinity;
    for (let f = from; f <= to; f++) excessDb = Math.max(excessDb, this.excess[f - this.firstFrame] ?? -Infinity);
    // Frames before `to` are never looked at again: the next window starts at or after it.
    this.excess = this.excess.slice(to - this.firstFrame);
    this.firstFrame = to;
    return { probability: await this.vad.probability(window), excessDb };
  }

  reset(): void {
    this.vad.reset();
  }
}
