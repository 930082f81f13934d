/**
 * An AudioInput of silence: endless and paced at capture speed until the
 * signal aborts (a voice loop with no microphone), or a fixed number of
 * frames (tests), unpaced unless asked.
 */
import { AppError } from '../../src/errors/index.js';
import { FRAME_SAMPLES, type AudioFrame, type AudioInput } from '../../src/voice/types.js';
import { pacedFrames, systemClock, type AudioClock } from '../../src/voice/audio/index.js';

export interface NullInputOptions {
  /** Stop after this many frames; endless when absent. */
  frameCount?: number;
  /** Pace frames at capture speed. Default: true when endless, false for a fixed count. */
  realtime?: boolean;
  clock?: AudioClock;
}

export class NullInput implements AudioInput {
  readonly name = 'null';
  private readonly frameCount: number;
  private readonly realtime: boolean;
  private readonly clock: AudioClock;
  private closed = false;

  constructor(options: NullInputOptions = {}) {
    const { frameCount } = options;
    if (frameCount !== undefined && (!Number.isInteger(frameCount) || frameCount < 0)) {
      throw new AppError('AUDIO_INPUT_CONFIG_INVALID', `null input frameCount must be a whole number >= 0, got ${frameCount}`);
    }
    this.frameCount = frameCount ?? Infinity;
    this.realtime = options.realtime ?? frameCount === undefined;
    // An endless unpaced generator never yields to the event loop: timers and I/O would starve.
    if (!this.realtime && this.frameCount === Infinity) {
      throw new AppError('AUDIO_INPUT_CONFIG_INVALID', 'an endless null input must be paced (realtime: true) or given a frameCount');
    }
    this.clock = options.clock ?? systemClock;
  }

  frames(options: { signal?: AbortSignal } = {}): AsyncIterable<AudioFrame> {
    return pacedFrames(this.frameCount, () => new Int16Array(FRAME_SAMPLES), {
      realtime: this.realtime,
      clock: this.clock,
      signal: options.signal,
      stopped: () => this.closed,
    });
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
