/**
 * Barge-in detection on the microphone while the assistant may be talking:
 * each 20 ms mic frame goes through the APM with the speaker audio that was
 * playing then (two 10 ms render+capture pairs), the cleaned audio is scored
 * by the VAD in its own windows (512 samples for Silero), and
 * `speech_started` is reported once enough speech has been heard: during
 * playback, windows at or above `bargeInThreshold` adding up to
 * `minBargeInSpeechMs` in a row (so residual echo rarely qualifies); outside
 * playback, one window at or above `speechThreshold`. With a `doubleTalk`
 * path, a second rule runs during playback: the strong suppression that
 * keeps echo from qualifying also eats the onset of a voice over loud echo
 * (hundreds of ms in bench/echo.ts), so a less suppressed APM's output is
 * scored by a second VAD, and a run there may start only on a window where
 * the raw mic stands `echoExcessDb` above the echo that the speaker audio
 * predicts (BandDoubleTalkMeter unless given another); `doubleTalkMinSpeechMs` of it at
 * `doubleTalkThreshold` confirms (the decision is BargeInRule's). Time is audio time:
 * samples fed so far, not the wall clock, so a replay gives the same results.
 */
import { AppError } from '../../errors/index.js';
import type { Apm } from '../apm/index.js';
import type { Vad } from '../types.js';
import { BargeInRule, type BargeInSpeechStarted, type DoubleTalkWindow } from './barge-in-rule.js';
import { resolveDuplexConfig, type DuplexConfig } from './config.js';
import type { EchoExcessMeter } from './double-talk-meter.js';
import { DoubleTalkPath } from './double-talk-path.js';

export type { BargeInSpeechStarted, DoubleTalkWindow } from './barge-in-rule.js';

export interface BargeInDetectorOptions {
  apm: Apm;
  vad: Vad;
  config?: Partial<DuplexConfig>;
  /** Samples in one frame handed to `process`; default two APM frames (20 ms). */
  frameSamples?: number;
  /**
   * The second path for speech over echo: an APM of the same format with
   * less echo suppression (WebRtcApm 'low') and a VAD of its own (its state
   * must not be shared with `vad`), and how the mic's excess over the
   * echo is measured (default BandDoubleTalkMeter). Absent: only the
   * cleaned-path rule.
   */
  doubleTalk?: { apm: Apm; vad: Vad; meter?: EchoExcessMeter };
}

export interface VadWindowScore {
  /** Audio time of the window's start, ms. */
  startMs: number;
  probability: number;
  /** With a double-talk path: its VAD probability and the mic's excess over the predicted echo, dB. */
  doubleTalk?: DoubleTalkWindow;
}

/** What one `process` call saw, so a caller can measure. */
export interface BargeInFrameResult {
  /** Audio time of the frame's start, ms. */
  atMs: number;
  playing: boolean;
  /** The microphone frame after the APM. */
  cleaned: Int16Array;
  /** VAD windows completed by this frame (zero or more). */
  windows: VadWindowScore[];
  event?: BargeInSpeechStarted;
}

export class BargeInDetector {
  readonly config: DuplexConfig;
  readonly frameSamples: number;
  private readonly apm: Apm;
  private readonly vad: Vad;
  private readonly sampleRate: number;
  private readonly silence: Int16Array;
  private readonly pending: Int16Array;
  private pendingLength = 0;
  /** Samples fed so far (frames) and scored so far (windows). */
  private fedSamples = 0;
  private scoredSamples = 0;
  private readonly rule: BargeInRule;
  private readonly doubleTalk: DoubleTalkPath | undefined;

  constructor(options: BargeInDetectorOptions) {
    this.apm = options.apm;
    this.vad = options.vad;
    this.config = resolveDuplexConfig(options.config);
    if (this.apm.format.channels !== 1) {
      throw new AppError('DUPLEX_FRAME_INVALID', `barge-in detection needs mono capture, the APM has ${this.apm.format.channels} channels`);
    }
    this.sampleRate = this.apm.format.sampleRate;
    this.frameSamples = options.frameSamples ?? 2 * this.apm.frameSamples;
    if (this.frameSamples <= 0 || this.frameSamples % this.apm.frameSamples !== 0) {
      throw new AppError('DUPLEX_FRAME_INVALID', `frameSamples must be a multiple of the APM's ${this.apm.frameSamples}, got ${this.frameSamples}`);
    }
    this.silence = new Int16Array(this.apm.frameSamples);
    this.pending = new Int16Array(this.vad.frameSamples + this.frameSamples);
    const second = options.doubleTalk;
    if (second) {
      const same = second.apm.format.sampleRate === this.sampleRate && second.apm.format.channels === 1 && second.apm.frameSamples === this.apm.frameSamples;
      if (!same || second.vad.frameSamples !== this.vad.frameSamples || second.vad === this.vad) {
        throw new AppError('DUPLEX_FRAME_INVALID', 'the double-talk path needs an APM of the same format and a VAD of its own with the same window');
      }
      this.doubleTalk = new DoubleTalkPath(second.apm, second.vad, this.frameSamples, second.meter);
    }
    this.rule = new BargeInRule(this.config, this.toMs(this.vad.frameSamples));
  }

  /**
   * One mic frame and the render that was playing while it was recorded;
   * `render` absent (or null) means nothing was playing, and silence goes to
   * the APM's render side so its clock keeps step with the capture's.
   * `trust`: how far speech heard over playback is believed (BargeInRule.score; below 1 while the clocks drift).
   */
  async process(mic: Int16Array, render?: Int16Array | null, trust = 1): Promise<BargeInFrameResult> {
    if (mic.length !== this.frameSamples) throw frameInvalid('mic', this.frameSamples, mic.length);
    const playing = render !== undefined && render !== null;
    if (playing && render.length !== this.frameSamples) throw frameInvalid('render', this.frameSamples, render.length);
    const atMs = this.toMs(this.fedSamples);
    const cleaned = new Int16Array(this.frameSamples);
    const n = this.apm.frameSamples;
    for (let offset = 0; offset < this.frameSamples; offset += n) {
      const renderFrame = playing ? render.subarray(offset, offset + n) : this.silence;
      const micFrame = mic.subarray(offset, offset + n);
      this.apm.processRender(renderFrame);
      cleaned.set(this.apm.processCapture(micFrame), offset);
      this.doubleTalk?.feed(micFrame, renderFrame, playing);
    }
    this.fedSamples += this.frameSamples;
    this.pending.set(cleaned, this.pendingLength);
    this.pendingLength += cleaned.length;

    const windows: VadWindowScore[] = [];
    let event: BargeInSpeechStarted | undefined;
    const w = this.vad.frameSamples;
    while (this.pendingLength >= w) {
      const window = this.pending.slice(0, w);
      this.pending.copyWithin(0, w, this.pendingLength);
      this.pendingLength -= w;
      const startMs = this.toMs(this.scoredSamples);
      this.scoredSamples += w;
      const probability = await this.vad.probability(window);
      const doubleTalk = await this.doubleTalk?.nextWindow();
      windows.push(doubleTalk ? { startMs, probability, doubleTalk } : { startMs, probability });
      event ??= this.rule.score(startMs, probability, playing, doubleTalk, trust);
    }
    return event === undefined ? { atMs, playing, cleaned, windows } : { atMs, playing, cleaned, windows, event };
  }

  /** Forgets the run and the VAD's state (not the APM's: its echo model stays useful). */
  reset(): void {
    this.rule.reset();
    this.vad.reset();
    this.doubleTalk?.reset();
  }

  private toMs(samples: number): number {
    return (samples * 1000) / this.sampleRate;
  }
}

function frameInvalid(what: string, expected: number, got: number): AppError {
  return new AppError('DUPLEX_FRAME_INVALID', `barge-in ${what} frame must be ${expected} samples, got ${got}`);
}
