/**
 * The echo canceller's render reference: what was actually written to the
 * speaker, kept in 10 ms frames on the speaker's timeline, so each capture
 * frame can be paired with the render audio whose echo it may hold.
 *
 * Echo heard by the microphone at capture time t left the speaker at
 * t - delayMs, so `reference(t, n)` returns the render audio that started
 * playing at t - delayMs; where nothing was playing it is silence.
 */
import { AppError } from '../../errors/index.js';
import { systemClock } from '../audio/index.js';
import { SAMPLE_RATE } from '../types.js';
import { AudioRingBuffer, type BufferedFrame, type OverrunReport } from './ring-buffer.js';

/** WebRTC APM processes exactly 10 ms per call. */
export const APM_FRAME_MS = 10;

export interface RenderReferenceOptions {
  /** Render audio held, in ms (default 2000): must cover the echo path's delay plus a capture frame. */
  capacityMs?: number;
  /** Initial estimate of the speaker-to-microphone delay, in ms (default 0). */
  delayMs?: number;
  sampleRate?: number;
  channels?: number;
  /** Supplies the time of a write that gives none, on the same clock as capture timestamps. */
  clock?: { now(): number };
  onOverrun?: (report: OverrunReport) => void;
}

/** A capture frame as the aligner takes it; the format defaults to the render format. */
export interface CaptureInput {
  samples: Int16Array;
  atMs: number;
  sampleRate?: number;
  channels?: number;
}

/** One 10 ms step for the echo canceller: capture and the render reference for it, in the same format. */
export interface AlignedFrame {
  atMs: number;
  capture: Int16Array;
  render: Int16Array;
}

export class RenderReference {
  readonly buffer: AudioRingBuffer;
  readonly sampleRate: number;
  readonly channels: number;
  /** Samples (interleaved) in one 10 ms frame. */
  readonly frameSamples: number;
  private readonly clock: { now(): number };
  private delay: number;
  /** Where the speaker's queue ends: the next contiguous write starts here. */
  private endMs = Number.NEGATIVE_INFINITY;

  constructor(options: RenderReferenceOptions = {}) {
    this.sampleRate = options.sampleRate ?? SAMPLE_RATE;
    this.channels = options.channels ?? 1;
    const perChannel = (this.sampleRate * APM_FRAME_MS) / 1000;
    if (!Number.isInteger(perChannel)) {
      throw new AppError('AUDIO_APM_FORMAT_MISMATCH', `${this.sampleRate} Hz does not divide into whole 10 ms frames`);
    }
    this.frameSamples = perChannel * this.channels;
    const capacityMs = options.capacityMs ?? 2000;
    if (!(capacityMs >= APM_FRAME_MS)) {
      throw new AppError('AUDIO_BUFFER_CONFIG_INVALID', `render reference capacityMs must be >= ${APM_FRAME_MS}, got ${capacityMs}`);
    }
    this.buffer = new AudioRingBuffer({
      name: 'render',
      capacity: Math.ceil(capacityMs / APM_FRAME_MS),
      sampleRate: this.sampleRate,
      channels: this.channels,
      ...(options.onOverrun ? { onOverrun: options.onOverrun } : {}),
    });
    this.delay = 0;
    this.delayMs = options.delayMs ?? 0;
    this.clock = options.clock ?? systemClock;
  }

  get delayMs(): number {
    return this.delay;
  }

  /** A new delay estimate (from the APM's delay estimator or a calibration chirp). */
  set delayMs(ms: number) {
    if (!Number.isFinite(ms) || ms < 0) throw new AppError('AUDIO_BUFFER_CONFIG_INVALID', `render delay must be a finite number >= 0 ms, got ${ms}`);
    this.delay = ms;
  }

  /**
   * Records audio handed to the speaker, starting to play at `atMs`; without
   * one it follows the previous write, or starts now if the speaker ran dry.
   * Stored as 10 ms frames (a trailing part shorter), so memory stays bounded.
   */
  write(samples: Int16Array, atMs?: number): BufferedFrame[] {
    const start = atMs ?? Math.max(this.clock.now(), this.endMs);
    if (samples.length % this.channels !== 0) {
      throw new AppError('AUDIO_FORMAT_INVALID', `cannot write ${samples.length} samples as whole frames of ${this.channels} channel(s)`);
    }
    const inputs: { samples: Int16Array; atMs: number }[] = [];
    for (let i = 0; i < samples.length; i += this.frameSamples) {
      inputs.push({ samples: samples.subarray(i, i + this.frameSamples), atMs: start + this.msOf(i) });
    }
    const stored = this.buffer.pushMany(inputs);
    this.endMs = Math.max(this.endMs, start + this.msOf(samples.length));
    return stored;
  }

  /**
   * The speaker's queue was cleared at `atMs` (a barge-in): audio written to
   * play after it never will, so it stops being reference.
   */
  clearQueued(atMs: number = this.clock.now()): void {
    this.buffer.dropNewerThan(atMs);
    this.endMs = Math.min(this.endMs, atMs);
  }

  /**
   * `length` samples per channel of render audio aligned with capture that
   * starts at `captureAtMs`: the audio that began playing delayMs earlier,
   * silence where none was playing.
   */
  reference(captureAtMs: number, length: number): Int16Array {
    const out = new Int16Array(length * this.channels);
    const fromMs = captureAtMs - this.delay;
    const toMs = fromMs + (length / this.sampleRate) * 1000;
    for (const frame of this.buffer.range(fromMs, toMs)) {
      const offset = Math.round(((frame.atMs - fromMs) * this.sampleRate) / 1000) * this.channels;
      const from = Math.max(0, -offset);
      const to = Math.min(frame.samples.length, out.length - offset);
      if (to > from) out.set(frame.samples.subarray(from, to), offset + from);
    }
    return out;
  }

  /**
   * Splits a capture frame (20 ms in this voice) into the echo canceller's
   * 10 ms frames, each with its render reference. A trailing part shorter than
   * 10 ms (the end of a file) is padded with silence: the APM takes whole frames only.
   */
  align(capture: CaptureInput): AlignedFrame[] {
    const sampleRate = capture.sampleRate ?? this.sampleRate;
    const channels = capture.channels ?? this.channels;
    if (sampleRate !== this.sampleRate || channels !== this.channels) {
      throw new AppError(
        'AUDIO_APM_FORMAT_MISMATCH',
        `capture is ${sampleRate} Hz x ${channels} channel(s) but the render reference is ${this.sampleRate} Hz x ${this.channels}; resample first`,
      );
    }
    const frames: AlignedFrame[] = [];
    for (let i = 0; i < capture.samples.length; i += this.frameSamples) {
      const part = capture.samples.subarray(i, i + this.frameSamples);
      const padded = part.length === this.frameSamples ? part.slice() : new Int16Array(this.frameSamples);
      if (part.length !== this.frameSamples) padded.set(part);
      const atMs = capture.atMs + this.msOf(i);
      frames.push({ atMs, capture: padded, render: this.reference(atMs, this.frameSamples / this.channels) });
    }
    return frames;
  }

  /** Forgets all render audio (the delay estimate stays). */
  clear(): void {
    this.buffer.clear();
    this.endMs = Number.NEGATIVE_INFINITY;
  }

  /** Duration of `samples` interleaved samples, in ms. */
  private msOf(samples: number): number {
    return (samples / this.channels / this.sampleRate) * 1000;
  }
}
