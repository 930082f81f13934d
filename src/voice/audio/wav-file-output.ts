/**
 * An AudioOutput that records what is "played" (16 kHz mono) and writes it
 * as a WAV file at close.
 *
 * Unpaced (the default) it is an instant speaker: a write plays at once, so
 * drain resolves at once and clear has nothing to drop. With `realtime` it
 * plays at 16 kHz on the clock, so an interruption is audible in the file:
 * clear drops the unplayed rest, and close keeps only what has played
 * (drain first to keep everything), as closing a device would.
 */
import { AppError } from '../../errors/index.js';
import { SAMPLE_RATE, type AudioOutput } from '../types.js';
import { systemClock, type AudioClock } from './clock.js';
import { writeWav } from './wav.js';

export interface WavFileOutputOptions {
  realtime?: boolean;
  clock?: AudioClock;
}

const SAMPLES_PER_MS = SAMPLE_RATE / 1000;

export class WavFileOutput implements AudioOutput {
  readonly name: string;
  private readonly path: string;
  private readonly realtime: boolean;
  private readonly clock: AudioClock;
  private played: Int16Array[] = [];
  private queued: Int16Array[] = [];
  /** Where the current run of playback began, and how much of it has moved to `played`. */
  private runStartMs = 0;
  private runPlayed = 0;
  private closed = false;

  constructor(path: string, options: WavFileOutputOptions = {}) {
    this.path = path;
    this.name = `wav:${path}`;
    this.realtime = options.realtime ?? false;
    this.clock = options.clock ?? systemClock;
  }

  async write(samples: Int16Array): Promise<void> {
    if (this.closed) throw new AppError('AUDIO_OUTPUT_CLOSED', `${this.name} is closed`);
    if (!this.realtime) {
      this.played.push(samples.slice());
      return;
    }
    this.advance();
    if (this.queued.length === 0) {
      // The speaker was idle: this chunk starts playing now.
      this.runStartMs = this.clock.now();
      this.runPlayed = 0;
    }
    this.queued.push(samples.slice());
  }

  async drain(): Promise<void> {
    for (;;) {
      this.advance();
      const left = this.queued.reduce((n, chunk) => n + chunk.length, 0);
      if (left === 0) return;
      await this.clock.sleep(left / SAMPLES_PER_MS);
    }
  }

  clear(): void {
    this.advance();
    this.queued = [];
  }

  /** Everything played so far, 16 kHz mono. */
  recorded(): Int16Array {
    this.advance();
    const out = new Int16Array(this.played.reduce((n, chunk) => n + chunk.length, 0));
    let offset = 0;
    for (const chunk of this.played) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const samples = this.recorded();
    this.closed = true;
    this.queued = [];
    await writeWav(this.path, { sampleRate: SAMPLE_RATE, channels: 1, samples });
  }

  /** Moves what the clock says has played from `queued` to `played`. */
  private advance(): void {
    if (this.queued.length === 0) return;
    const due = Math.floor((this.clock.now() - this.runStartMs) * SAMPLES_PER_MS) - this.runPlayed;
    let left = due;
    while (left > 0 && this.queued.length > 0) {
      const chunk = this.queued[0]!;
      const take = Math.min(left, chunk.length);
      this.played.push(chunk.subarray(0, take));
      if (take === chunk.length) this.queued.shift();
      else this.queued[0] = chunk.subarray(take);
      left -= take;
      this.runPlayed += take;
    }
  }
}
