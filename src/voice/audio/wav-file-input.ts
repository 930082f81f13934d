/**
 * An AudioInput that plays a WAV file as capture: converted to 16 kHz mono
 * and cut into 20 ms frames stamped on the file's own clock (frame n at
 * n * 20 ms), so the same file always gives the same frames. `realtime`
 * paces delivery at capture speed for demos; tests leave it off.
 */
import { basename } from 'node:path';
import { FRAME_SAMPLES, type AudioFrame, type AudioInput } from '../types.js';
import { pacedFrames, systemClock, type AudioClock } from './clock.js';
import { toVoiceFormat } from './resample.js';
import { readWav } from './wav.js';

export interface WavFileInputOptions {
  /** Deliver frame n no earlier than (n + 1) * 20 ms after `frames()` starts, as a microphone would. */
  realtime?: boolean;
  clock?: AudioClock;
}

export class WavFileInput implements AudioInput {
  readonly name: string;
  /** The whole file, 16 kHz mono. */
  readonly samples: Int16Array;
  private readonly realtime: boolean;
  private readonly clock: AudioClock;
  private closed = false;

  /** Reads and converts the file now, so a bad file fails here and not mid-stream. */
  static async open(path: string, options: WavFileInputOptions = {}): Promise<WavFileInput> {
    const wav = await readWav(path);
    return new WavFileInput(`wav:${basename(path)}`, toVoiceFormat(wav.samples, wav.sampleRate, wav.channels), options);
  }

  /** Audio already in the voice's format (tests, generated speech). */
  constructor(name: string, samples: Int16Array, options: WavFileInputOptions = {}) {
    this.name = name;
    this.samples = samples;
    this.realtime = options.realtime ?? false;
    this.clock = options.clock ?? systemClock;
  }

  get frameCount(): number {
    return Math.ceil(this.samples.length / FRAME_SAMPLES);
  }

  /** Each call plays the file from the start; ends at its end, on `signal`, or on close. */
  frames(options: { signal?: AbortSignal } = {}): AsyncIterable<AudioFrame> {
    return pacedFrames(this.frameCount, (index) => this.samples.slice(index * FRAME_SAMPLES, (index + 1) * FRAME_SAMPLES), {
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
