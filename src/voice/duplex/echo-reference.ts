/**
 * What the speaker played, as the echo canceller and the barge-in rules
 * need it: the render reference (every chunk written, on the capture
 * clock), whether a capture frame may hold echo (render audio, or its tail,
 * was playing), how much the canceller has heard so far (its warm-up), and
 * whether capture and playback clocks drift apart.
 */
import type { AssistantBus } from '../../events/index.js';
import { DriftTracker, RenderReference, type OverrunReport } from '../buffers/index.js';
import { FRAME_SAMPLES, SAMPLE_RATE, type AudioFrame } from '../types.js';

export interface EchoReferenceOptions {
  bus: AssistantBus;
  clock: () => number;
  eventClock: () => number;
  capacityMs: number;
  delayMs: number;
  driftTolerancePpm: number;
  /** Render audio counts as audible this long after it ends: the room's echo tail. */
  echoTailMs: number;
  onOverrun: (report: OverrunReport) => void;
}

/** While capture and playback clocks drift apart, a barge-in must be this much surer. */
const DRIFT_CONFIDENCE_SCALE = 0.9;

export class EchoReference {
  private readonly render: RenderReference;
  private readonly drift: DriftTracker;
  /** Where the written render audio ends, on the capture clock. */
  private renderUntilMs = Number.NEGATIVE_INFINITY;
  /** The end of the last capture frame heard. */
  private heardUntilMs = Number.NEGATIVE_INFINITY;
  /** Render audio written since the start, ms. */
  private renderedMs = 0;

  constructor(private readonly options: EchoReferenceOptions) {
    const clock = { now: options.clock };
    this.render = new RenderReference({
      capacityMs: options.capacityMs,
      delayMs: options.delayMs,
      clock,
      onOverrun: (report) => {
        // The reference is history read by time: dropping what capture has moved past is its normal course.
        if (report.toMs > this.heardUntilMs - this.render.delayMs) options.onOverrun(report);
      },
    });
    this.drift = new DriftTracker({
      tolerancePpm: options.driftTolerancePpm,
      clock,
      onDrift: (report) => options.bus.emit({ type: 'audio.reference_drift', stage: 'audio', ...report, atMs: options.eventClock() }),
    });
  }

  /** Capture and playback clocks disagree beyond the tolerance. */
  get drifting(): boolean {
    return this.drift.lowerInterruptionConfidence;
  }

  /**
   * How much speech heard over the speaker's audio counts (a factor on its
   * confidence): nothing until the canceller has heard `warmupMs` of render
   * (it lets its first echoes through), less while the clocks drift, in
   * full otherwise; speech with nothing playing always counts in full.
   */
  confidenceScale(duringPlayback: boolean, warmupMs: number): number {
    if (!duringPlayback) return 1;
    if (this.renderedMs < warmupMs) return 0;
    return this.drifting ? DRIFT_CONFIDENCE_SCALE : 1;
  }

  /** A chunk exactly as written to the speaker. */
  written(chunk: Int16Array): void {
    const stored = this.render.write(chunk);
    this.renderedMs += (chunk.length * 1000) / SAMPLE_RATE;
    const last = stored[stored.length - 1];
    if (last) this.renderUntilMs = last.atMs + (last.samples.length * 1000) / SAMPLE_RATE;
  }

  /** A chunk went to the device, at the device's pace: the render side of the drift check. */
  handedOff(samples: number): void {
    this.drift.render(samples);
  }

  /** A capture frame: the render audio it may hold the echo of, or null when nothing (nor its tail) was playing. */
  forCapture(frame: AudioFrame): Int16Array | null {
    this.drift.capture(frame.samples.length, frame.atMs);
    this.heardUntilMs = frame.atMs + (frame.samples.length * 1000) / SAMPLE_RATE;
    const echoing = frame.atMs < this.renderUntilMs + this.render.delayMs + this.options.echoTailMs;
    return echoing ? this.render.reference(frame.atMs, FRAME_SAMPLES) : null;
  }

  /** Playback was stopped now: what was queued to play after this never will. */
  stopped(): void {
    const now = this.options.clock();
    this.render.clearQueued(now);
    this.renderUntilMs = Math.min(this.renderUntilMs, now);
  }
}
