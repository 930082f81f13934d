/**
 * A speaker and a microphone in one simulated room: what the speaker plays
 * comes back into the microphone delayed, attenuated and with noise, mixed
 * with whatever the user is made to say. The speaker plays 20 ms per
 * microphone frame and takes only a short queue (like a device), so a
 * cleared queue is silence at the next frame. Paced in real time on a clock,
 * or as fast as the frames are read (virtual time: the room's clock is then
 * the audio time of the last frame), for tests and benches without a sound card.
 */
import { AppError } from '../../src/errors/index.js';
import { FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE, type AudioFrame, type AudioInput, type AudioOutput } from '../../src/voice/types.js';
import { sleepUntil, systemClock, type AudioClock } from '../../src/voice/audio/index.js';
import { seededRandom } from './seeded-random.js';

export interface SimulatedRoomOptions {
  /** Speaker-to-microphone delay (ms) and level (0..1) of the echo. */
  echoDelayMs?: number;
  echoGain?: number;
  /** White noise at the microphone, peak amplitude in int16 units. */
  noise?: number;
  seed?: number;
  /** Frames come every 20 ms of `clock`; false: as fast as they are read. */
  realtime?: boolean;
  clock?: AudioClock;
  /** The microphone ends after this much audio; default: when closed. */
  durationMs?: number;
  /** The most the speaker queues before a write waits (default 60 ms). */
  speakerQueueMs?: number;
  /** Virtual time: event-loop turns given to other work after each frame, so replies keep pace (default 3). */
  yieldsPerFrame?: number;
}

interface Utterance {
  samples: Int16Array;
  /** Absolute sample position in the microphone stream where it starts. */
  atSample: number;
}

export class SimulatedRoom {
  readonly input: AudioInput;
  readonly output: AudioOutput;
  /** Every sample the speaker played, in order (silence where it had nothing). */
  readonly played: Int16Array[] = [];
  private readonly options: Required<Omit<SimulatedRoomOptions, 'durationMs' | 'clock'>> & { durationMs: number | undefined };
  private readonly clock: AudioClock;
  private queue: Int16Array[] = [];
  private queued = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly speech: Utterance[] = [];
  private micSamples = 0;
  private startedAtMs = 0;
  private closed = false;
  private random: () => number;
  private virtualNowMs = 0;

  constructor(options: SimulatedRoomOptions = {}) {
    this.options = {
      echoDelayMs: options.echoDelayMs ?? 40,
      echoGain: options.echoGain ?? 0.5,
      noise: options.noise ?? 0,
      seed: options.seed ?? 1,
      realtime: options.realtime ?? false,
      durationMs: options.durationMs,
      speakerQueueMs: options.speakerQueueMs ?? 60,
      yieldsPerFrame: options.yieldsPerFrame ?? 3,
    };
    this.clock = options.realtime ? (options.clock ?? systemClock) : { now: () => this.virtualNowMs, sleep: async () => undefined };
    this.random = seededRandom(this.options.seed);
    this.input = { name: 'simulated-room-mic', frames: (o) => this.frames(o?.signal), close: async () => this.close() };
    const room = this;
    this.output = {
      name: 'simulated-room-speaker',
      write: (samples) => room.write(samples),
      drain: () => room.drain(),
      clear: () => room.clear(),
      close: async () => room.close(),
    };
  }

  /** The room's clock (the frames' `atMs` are on it). */
  now(): number {
    return this.clock.now();
  }

  /** Mic audio time reached so far, in ms. */
  get audioMs(): number {
    return (this.micSamples / SAMPLE_RATE) * 1000;
  }

  /** The user says `samples`, starting at mic audio time `atAudioMs` (default: the next frame). */
  say(samples: Int16Array, atAudioMs?: number): void {
    const atSample = atAudioMs === undefined ? this.micSamples : Math.round((atAudioMs * SAMPLE_RATE) / 1000);
    this.speech.push({ samples, atSample });
  }

  close(): void {
    this.closed = true;
    this.release();
  }

  private async *frames(signal?: AbortSignal): AsyncIterable<AudioFrame> {
    this.startedAtMs = this.clock.now();
    const total = this.options.durationMs === undefined ? Infinity : Math.ceil(this.options.durationMs / FRAME_MS);
    for (let index = 0; index < total; index++) {
      if (this.options.realtime && !(await sleepUntil(this.clock, this.startedAtMs + (index + 1) * FRAME_MS, signal))) return;
      if (this.closed || signal?.aborted) return;
      const atMs = this.startedAtMs + index * FRAME_MS;
      const samples = this.capture();
      if (!this.options.realtime) this.virtualNowMs = atMs + FRAME_MS;
      yield { samples, index, atMs };
      if (!this.options.realtime) for (let i = 0; i < this.options.yieldsPerFrame; i++) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** One frame: the speaker plays 20 ms, the microphone hears echo + speech + noise. */
  private capture(): Int16Array {
    this.played.push(this.takeFromSpeaker());
    const mic = new Float64Array(FRAME_SAMPLES);
    const delay = Math.round((this.options.echoDelayMs * SAMPLE_RATE) / 1000);
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const speakerAt = this.micSamples + i - delay;
      mic[i] = speakerAt >= 0 ? this.speakerSample(speakerAt) * this.options.echoGain : 0;
      if (this.options.noise > 0) mic[i] = mic[i]! + (this.random() * 2 - 1) * this.options.noise;
    }
    for (const u of this.speech) {
      const from = Math.max(0, this.micSamples - u.atSample);
      const to = Math.min(u.samples.length, this.micSamples + FRAME_SAMPLES - u.atSample);
      for (let s = from; s < to; s++) mic[u.atSample + s - this.micSamples] = mic[u.atSample + s - this.micSamples]! + u.samples[s]!;
    }
    this.micSamples += FRAME_SAMPLES;
    const out = new Int16Array(FRAME_SAMPLES);
    for (let i = 0; i < FRAME_SAMPLES; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(mic[i]!)));
    return out;
  }

  private speakerSample(position: number): number {
    const frame = this.played[Math.floor(position / FRAME_SAMPLES)];
    return frame ? frame[position % FRAME_SAMPLES]! : 0;
  }

  private takeFromSpeaker(): Int16Array {
    const out = new Int16Array(FRAME_SAMPLES);
    let filled = 0;
    while (filled < FRAME_SAMPLES && this.queue.length > 0) {
      const head = this.queue[0]!;
      const take = Math.min(head.length, FRAME_SAMPLES - filled);
      out.set(head.subarray(0, take), filled);
      filled += take;
      if (take === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(take);
      this.queued -= take;
    }
    this.release();
    return out;
  }

  private async write(samples: Int16Array): Promise<void> {
    if (this.closed) throw new AppError('AUDIO_OUTPUT_CLOSED', 'the simulated speaker is closed');
    this.queue.push(samples.slice());
    this.queued += samples.length;
    const limit = (this.options.speakerQueueMs * SAMPLE_RATE) / 1000;
    while (this.queued > limit && !this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private async drain(): Promise<void> {
    while (this.queued > 0 && !this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private clear(): void {
    this.queue = [];
    this.queued = 0;
    this.release();
  }

  private release(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

