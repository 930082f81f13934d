/**
 * AudioInput on a PortAudio device through naudiodon: capture at the
 * device's rate (48 kHz where it takes it), converted to 16 kHz mono 20 ms
 * frames.
 *
 * naudiodon reads its Readable in `highwaterMark` bytes and defaults to
 * 16384 (512 ms of 16 kHz mono: a whole sentence late), whatever
 * framesPerBuffer says. Setting both to one 10 ms chunk makes PortAudio call
 * back every 10 ms and each read return as soon as that chunk is there.
 * Each frames() call opens a fresh stream (naudiodon cannot restart one), so
 * nothing piles up between recordings. Through a PulseAudio null sink at
 * 48 kHz the first chunk came about 11 ms after frames() started, chunks
 * were 10.0 ms, and a chunk reached us a median 0.2 ms (p95 0.4 ms) after
 * the least delayed one; frames are stamped from that (capture-clock.ts).
 *
 * A capture that stops delivering (the sound server went away: naudiodon
 * then neither errors nor ends) fails with AUDIO_DEVICE_LOST after
 * `stallMs` (stall-watch.ts) instead of waiting forever.
 */
import { AppError, messageOf } from '../../errors/index.js';
import { systemClock, type AudioClock } from '../audio/index.js';
import type { AudioFrame, AudioInput } from '../types.js';
import { FrameAssembler } from './capture-frames.js';
import { watchStall } from './stall-watch.js';
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
  type PortAudioStreamOptions,
} from './portaudio.js';

export interface PortAudioInputOptions {
  /** A device name or part of it (`[audio] input`); default "default". */
  device?: string;
  /** Default: 48 kHz, else the device's default (see candidateRates). */
  sampleRate?: number;
  /** Channels captured and mixed to mono. Default 1. */
  channels?: number;
  /** Chunk PortAudio delivers, ms. Default 10. */
  chunkMs?: number;
  /** Chunks naudiodon holds while JavaScript is busy; when full, the device overflows and drops audio. Default 50. */
  queueChunks?: number;
  /** Frames kept for a consumer that falls behind; past it the oldest are dropped (and counted). Default 250 (5 s). */
  maxBufferedFrames?: number;
  /** No chunk for this long from a capture that delivered steadily is AUDIO_DEVICE_LOST. Default 1000 (chunks come every chunkMs). */
  stallMs?: number;
  /**
   * The same before it delivers steadily, its first chunk included. Default 3000: a PulseAudio
   * null sink with no low-latency client renders in blocks up to 2 s apart (stall-watch.ts).
   */
  unsteadyStallMs?: number;
  binding?: PortAudioBinding;
  clock?: AudioClock;
}

/** What the device actually delivered, for diagnostics and the latency tests. */
export interface CaptureStats {
  sampleRate: number;
  chunks: number;
  minChunkMs: number;
  maxChunkMs: number;
  droppedFrames: number;
}

export class PortAudioInput implements AudioInput {
  readonly name: string;
  readonly device: PortAudioDevice;
  private readonly binding: PortAudioBinding;
  /** Rates to try; after a capture has opened, just its rate. */
  private rates: number[];
  private readonly channels: number;
  private readonly chunkMs: number;
  private readonly queueChunks: number;
  private readonly maxBufferedFrames: number;
  private readonly stallMs: number;
  private readonly unsteadyStallMs: number;
  private readonly clock: AudioClock;
  private current: { wake: () => void; stop: () => Promise<void> } | undefined;
  private closed = false;
  private counters: CaptureStats;

  /** Chooses the device by name; capture starts with frames(). */
  static open(options: PortAudioInputOptions = {}): PortAudioInput {
    const binding = options.binding ?? loadPortAudio();
    return new PortAudioInput(binding, chooseDevice(binding, options.device ?? 'default', 'input'), options);
  }

  private constructor(binding: PortAudioBinding, device: PortAudioDevice, options: PortAudioInputOptions) {
    this.binding = binding;
    this.device = device;
    this.name = `portaudio:${device.name}`;
    this.rates = candidateRates(device, options.sampleRate);
    this.channels = options.channels ?? 1;
    this.chunkMs = options.chunkMs ?? 10;
    this.queueChunks = options.queueChunks ?? 50;
    this.maxBufferedFrames = options.maxBufferedFrames ?? 250;
    this.stallMs = options.stallMs ?? 1000;
    this.unsteadyStallMs = options.unsteadyStallMs ?? 3000;
    this.clock = options.clock ?? systemClock;
    this.counters = this.freshStats();
  }

  stats(): CaptureStats {
    return { ...this.counters };
  }

  async *frames(options: { signal?: AbortSignal } = {}): AsyncIterable<AudioFrame> {
    const { signal } = options;
    if (this.closed || signal?.aborted) return;
    if (this.current) throw new AppError('AUDIO_INPUT_BUSY', `${this.name} is already capturing: one frames() at a time`);
    const { stream, options: opened } = this.openCapture();
    this.rates = [opened.sampleRate];
    const assembler = new FrameAssembler(opened.sampleRate, this.channels);
    const buffered: AudioFrame[] = [];
    let failure: AppError | undefined;
    let ended = false;
    let wake = (): void => undefined;
    const notify = (): void => wake();
    this.counters = this.freshStats(opened.sampleRate);

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= quitStream(stream));
    this.current = { wake: notify, stop };
    const watch = watchStall({
      stallMs: this.stallMs,
      unsteadyMs: this.unsteadyStallMs,
      now: () => this.clock.now(),
      onStall: (silentMs) => {
        failure ??= new AppError('AUDIO_DEVICE_LOST', `audio input ${JSON.stringify(this.device.name)} stopped delivering sound (nothing for ${silentMs} ms): the sound server or the device has gone`, { retryable: true });
        notify();
      },
    });
    stream.on('data', (chunk: Buffer) => {
      const arrivalMs = this.clock.now();
      watch.beat();
      this.count(chunk.length);
      for (const frame of assembler.push(asInt16(chunk), arrivalMs)) {
        buffered.push(frame);
        if (buffered.length > this.maxBufferedFrames) {
          buffered.shift();
          this.counters.droppedFrames += 1;
        }
      }
      notify();
    });
    stream.on('error', (error: unknown) => {
      failure ??= new AppError('AUDIO_DEVICE_FAILED', `audio input ${JSON.stringify(this.device.name)} failed: ${messageOf(error)}`, { cause: error, retryable: true });
      notify();
    });
    stream.on('end', () => {
      ended = true;
      notify();
    });
    signal?.addEventListener('abort', notify, { once: true });

    try {
      for (;;) {
        const stopped = (): boolean => this.closed || signal?.aborted === true;
        while (buffered.length > 0 && !stopped()) yield buffered.shift()!;
        if (stopped()) return;
        if (failure) throw failure;
        if (ended) throw new AppError('AUDIO_DEVICE_FAILED', `audio input ${JSON.stringify(this.device.name)} stopped delivering audio`, { retryable: true });
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      watch.stop();
      signal?.removeEventListener('abort', notify);
      await stop();
      this.current = undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const current = this.current;
    if (!current) return;
    current.wake();
    await current.stop();
  }

  private openCapture(): { stream: PortAudioStream; options: PortAudioStreamOptions } {
    return openStream(this.binding, 'input', this.device, this.rates, (rate) =>
      smallChunkOptions(this.device, rate, this.channels, this.chunkMs, this.queueChunks),
    );
  }

  private count(bytes: number): void {
    const ms = (bytes / (2 * this.channels) / this.counters.sampleRate) * 1000;
    const stats = this.counters;
    stats.chunks += 1;
    stats.minChunkMs = Math.min(stats.minChunkMs, ms);
    stats.maxChunkMs = Math.max(stats.maxChunkMs, ms);
  }

  private freshStats(sampleRate = this.rates[0]!): CaptureStats {
    return { sampleRate, chunks: 0, minChunkMs: Number.POSITIVE_INFINITY, maxChunkMs: 0, droppedFrames: 0 };
  }
}

/** A view when the bytes are aligned (naudiodon allocates each buffer), a copy otherwise. */
function asInt16(chunk: Buffer): Int16Array {
  const length = Math.floor(chunk.length / 2);
  if (chunk.byteOffset % 2 === 0) return new Int16Array(chunk.buffer, chunk.byteOffset, length);
  return new Int16Array(Uint8Array.prototype.slice.call(chunk, 0, length * 2).buffer);
}
