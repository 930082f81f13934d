/**
 * AudioOutput on a PortAudio device through naudiodon.
 *
 * A pump hands the device one small chunk at a time, audio when some is
 * queued and silence when not. naudiodon's write resolves only once its
 * queue (queueChunks long) has room, so the pump runs at the device's pace
 * and what sits between us and the speaker is bounded: clear() drops the
 * rest at the next chunk boundary, and what still plays is the chunk in
 * flight, naudiodon's queue and the device's own buffer (through a
 * PulseAudio null sink at 48 kHz: about 75 ms from write() to capture with
 * the default 4 chunks, 55 ms with 2; see the loopback test).
 * Silence while idle keeps the device clock running: an idle naudiodon
 * callback blocks, the device underruns and PortAudio prints an underflow on
 * stdout, and the delay to the speaker would differ from one reply to the
 * next, which echo cancellation cannot follow.
 *
 * That steady pump is also the output's pulse: a write not taken for
 * `stallMs` (the sound server went away; naudiodon then never calls back)
 * fails the output with AUDIO_DEVICE_LOST (`lost`), and every write and
 * drain after it throws at once instead of waiting forever. A lost output
 * stays lost: RecoveringOutput opens a new one.
 */
import { AppError, messageOf } from '../../errors/index.js';
import { Resampler, floatToInt16, int16ToFloat, systemClock, type AudioClock } from '../audio/index.js';
import { SAMPLE_RATE, type AudioOutput } from '../types.js';
import { countOutputUnderflows } from './audio-quiet.js';
import { PlaybackQueue } from './playback-queue.js';
import { watchStall, type StallWatch } from './stall-watch.js';
import {
  candidateRates,
  chooseDevice,
  loadPortAudio,
  openStream,
  quitStream,
  smallChunkOptions,
  type PortAudioBinding,
  type PortAudioDevice,
  type PortAudioStream,
} from './portaudio.js';

/** How often (chunks handed, 10 ms each) the output's underflows are read: every 5 s. */
const UNDERFLOW_CHECK_CHUNKS = 500;

/** naudiodon's queue length for `bufferMs` of audio in 10 ms chunks (at least 1). */
export function outputChunks(bufferMs: number, chunkMs = 10): number {
  return Math.max(1, Math.round(bufferMs / chunkMs));
}

export interface PortAudioOutputOptions {
  /** A device name or part of it (`[audio] output`), or one chooseDevice already found; default "default". */
  device?: string | PortAudioDevice;
  /** Default: 48 kHz, else the device's default (see candidateRates); 16 kHz audio is converted to it. */
  sampleRate?: number;
  /** Channels opened; the mono voice is copied to each. Default 1. */
  channels?: number;
  /** Chunk handed to the device, ms; also the granularity of clear(). Default 10. */
  chunkMs?: number;
  /** Chunks naudiodon queues: slack for a busy event loop (about 10 ms each, plus the device's 30), and as much latency. Default 4. */
  queueChunks?: number;
  /** Buffering after naudiodon's queue (PortAudio, ALSA, the sound server) that drain waits for. Default 35: PulseAudio showed 30 ms. */
  latencyMs?: number;
  /** A write not taken for this long, once the device took them steadily, is AUDIO_DEVICE_LOST. Default 1000 (one is taken every chunkMs). */
  stallMs?: number;
  /**
   * The same before it takes them steadily, its first chunk included. Default 3000: a PulseAudio
   * null sink with no low-latency client renders in blocks up to 2 s apart, and one a stream just
   * joined rendered once and then slept 1.2 s in the room-probe test (stall-watch.ts).
   */
  unsteadyStallMs?: number;
  binding?: PortAudioBinding;
  clock?: AudioClock;
}

export class PortAudioOutput implements AudioOutput {
  readonly name: string;
  readonly device: PortAudioDevice;
  readonly sampleRate: number;
  private readonly channels: number;
  private readonly chunkSamples: number;
  private readonly queueChunks: number;
  private readonly latencyMs: number;
  private readonly clock: AudioClock;
  private readonly stream: PortAudioStream;
  private readonly queue = new PlaybackQueue();
  private readonly resampler: Resampler | undefined;
  private readonly pumping: Promise<void>;
  /** Chunks handed to naudiodon, and the number of the last one that held audio. */
  private handed = 0;
  private lastAudioChunk = Number.NEGATIVE_INFINITY;
  /** When that chunk had left naudiodon's queue. */
  private audioLeftQueueAtMs = Number.NEGATIVE_INFINITY;
  private wakeHandOff: () => void = () => undefined;
  private handOff: Promise<void>;
  private failure: AppError | undefined;
  private closing: Promise<void> | undefined;
  private quitting: Promise<void> | undefined;
  private readonly watch: StallWatch;
  private reportLost: (error: AppError) => void = () => undefined;
  private reportReady: () => void = () => undefined;
  /** Resolves (never rejects) when the device stopped taking audio or failed; never, while it works. */
  readonly lost: Promise<AppError> = new Promise((resolve) => (this.reportLost = resolve));
  /** Resolves when the device took its first chunk (not only naudiodon's queue): it really plays. */
  readonly ready: Promise<void> = new Promise((resolve) => (this.reportReady = resolve));

  /** Chooses the device by name and starts it (playing silence). */
  static open(options: PortAudioOutputOptions = {}): PortAudioOutput {
    const binding = options.binding ?? loadPortAudio();
    const device = typeof options.device === 'object' ? options.device : chooseDevice(binding, options.device ?? 'default', 'output');
    return new PortAudioOutput(binding, device, options);
  }

  private constructor(binding: PortAudioBinding, device: PortAudioDevice, options: PortAudioOutputOptions) {
    this.device = device;
    this.name = `portaudio:${device.name}`;
    this.channels = options.channels ?? 1;
    this.queueChunks = options.queueChunks ?? 4;
    this.latencyMs = options.latencyMs ?? 35;
    this.clock = options.clock ?? systemClock;
    const chunkMs = options.chunkMs ?? 10;
    const opened = openStream(binding, 'output', device, candidateRates(device, options.sampleRate), (rate) =>
      smallChunkOptions(device, rate, this.channels, chunkMs, this.queueChunks),
    );
    this.stream = opened.stream;
    this.sampleRate = opened.options.sampleRate;
    this.chunkSamples = opened.options.framesPerBuffer;
    this.resampler = this.sampleRate === SAMPLE_RATE ? undefined : new Resampler(SAMPLE_RATE, this.sampleRate);
    this.handOff = this.nextHandOff();
    this.watch = watchStall({
      stallMs: options.stallMs ?? 1000,
      unsteadyMs: options.unsteadyStallMs ?? 3000,
      now: () => this.clock.now(),
      onStall: (silentMs) =>
        this.fail(new AppError('AUDIO_DEVICE_LOST', `audio output ${JSON.stringify(device.name)} stopped taking sound (a write waited ${silentMs} ms): the sound server or the device has gone`, { retryable: true })),
    });
    this.pumping = this.pump();
  }

  async write(samples: Int16Array): Promise<void> {
    if (this.closing) throw new AppError('AUDIO_OUTPUT_CLOSED', `${this.name} is closed`);
    this.throwIfFailed();
    const converted = this.resampler ? floatToInt16(this.resampler.push(int16ToFloat(samples))) : samples.slice();
    await new Promise<void>((resolve) => this.queue.push(converted, resolve));
    this.throwIfFailed();
  }

  async drain(): Promise<void> {
    // The resampler holds back a few samples of look-ahead: the end of an utterance must play too.
    if (this.resampler && !this.closing) this.queue.push(floatToInt16(this.resampler.flush()));
    for (;;) {
      this.throwIfFailed();
      if (this.closing) return;
      if (this.queue.queuedSamples === 0 && this.handed > this.lastAudioChunk + this.queueChunks) {
        const wait = this.audioLeftQueueAtMs + this.latencyMs - this.clock.now();
        if (wait > 0) await this.clock.sleep(wait);
        return;
      }
      await this.handOff;
    }
  }

  clear(): void {
    for (const settle of this.queue.clear()) settle();
    this.resampler?.flush();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.watch.stop();
      countOutputUnderflows();
      this.clear();
      this.wakeHandOff();
      // quit releases a write blocked on a full queue, so the pump ends too.
      await this.quit();
      // A lost stream's write may never come back: nothing more to wait for.
      if (!this.failure) await this.pumping;
    })();
    return this.closing;
  }

  /**
   * Once only: naudiodon's quit of an output waits for PortAudio's callback
   * to take one more chunk, and a stream the sound server dropped never
   * calls back, so that quit holds a libuv worker thread for good (a second
   * call would hold another). It still releases the write blocked on the
   * full queue.
   */
  private quit(): Promise<void> {
    return (this.quitting ??= quitStream(this.stream));
  }

  private fail(error: AppError): void {
    if (this.failure || this.closing) return;
    this.failure = error;
    this.watch.stop();
    this.clear();
    this.wakeHandOff();
    // quit() never rejects (quitStream); the loss is reported next.
    void this.quit();
    this.reportLost(error);
  }

  private async pump(): Promise<void> {
    const silence = new Int16Array(this.chunkSamples);
    try {
      while (!this.closing && !this.failure) {
        const taken = this.queue.take(this.chunkSamples);
        // Numbered when taken: audio on its way to the device is not drained yet.
        if (taken) this.lastAudioChunk = this.handed + 1;
        await this.writeDevice(taken ? taken.samples : silence);
        this.handed += 1;
        // The first queueChunks writes only fill naudiodon's queue; a later one is taken when the device plays.
        if (this.handed > this.queueChunks) {
          this.watch.beat();
          if (!this.failure) this.reportReady();
        }
        if (taken) for (const settle of taken.settled) settle();
        if (this.handed === this.lastAudioChunk + this.queueChunks + 1) this.audioLeftQueueAtMs = this.clock.now();
        if (this.handed % UNDERFLOW_CHECK_CHUNKS === 0) countOutputUnderflows();
        this.wakeHandOff();
      }
    } catch (error) {
      this.fail(new AppError('AUDIO_DEVICE_FAILED', `audio output ${JSON.stringify(this.device.name)} failed: ${messageOf(error)}`, { cause: error, retryable: true }));
    }
  }

  private writeDevice(mono: Int16Array): Promise<void> {
    const frames = this.channels === 1 ? mono : spread(mono, this.channels);
    const bytes = Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength);
    return new Promise((resolve, reject) => {
      this.stream.write!(bytes, (error) => (error ? reject(error) : resolve()));
    });
  }

  private nextHandOff(): Promise<void> {
    return new Promise((resolve) => {
      this.wakeHandOff = () => {
        this.handOff = this.nextHandOff();
        resolve();
      };
    });
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }
}

/** Mono to interleaved: the same sample on every channel. */
function spread(mono: Int16Array, channels: number): Int16Array {
  const out = new Int16Array(mono.length * channels);
  for (let i = 0; i < mono.length; i++) out.fill(mono[i]!, i * channels, (i + 1) * channels);
  return out;
}
