/**
 * A bounded ring of timestamped audio frames, for the full-duplex voice's
 * capture and render-reference streams. Memory is fixed by `capacity`
 * (frames): when the ring is full, a push drops the OLDEST frames and says so
 * through `onOverrun` instead of blocking the audio callback or growing.
 */
import { AppError } from '../../errors/index.js';
import { SAMPLE_RATE } from '../types.js';

/** One stored frame. Ids are monotonic for the life of the buffer (a `clear` does not reuse them). */
export interface BufferedFrame {
  readonly id: number;
  /** When the first sample was captured or rendered, in ms on the stream's monotonic clock. */
  readonly atMs: number;
  readonly sampleRate: number;
  readonly channels: number;
  /** samples / channels / sampleRate, in ms. */
  readonly durationMs: number;
  /** Interleaved PCM; a copy of what was pushed, so a caller may reuse its array. */
  readonly samples: Int16Array;
}

export interface FrameInput {
  samples: Int16Array;
  atMs: number;
}

/** What one push (or pushMany) dropped to make room. */
export interface OverrunReport {
  buffer: string;
  /** How many frames were dropped by this push. */
  dropped: number;
  fromId: number;
  toId: number;
  /** Start of the first dropped frame and end of the last, on the stream's clock. */
  fromMs: number;
  toMs: number;
  /** Audio actually dropped (the sum of durations; gaps between frames are not counted). */
  droppedMs: number;
  /** Frames dropped since the buffer was made. */
  totalDropped: number;
  capacity: number;
}

export interface RingBufferOptions {
  /** Frames held at most (a whole number >= 1). */
  capacity: number;
  /** Names the buffer in overrun reports ('capture', 'render'). */
  name?: string;
  sampleRate?: number;
  channels?: number;
  onOverrun?: (report: OverrunReport) => void;
}

export class AudioRingBuffer {
  readonly name: string;
  readonly capacity: number;
  readonly sampleRate: number;
  readonly channels: number;
  private readonly slots: (BufferedFrame | undefined)[];
  private readonly onOverrun: ((report: OverrunReport) => void) | undefined;
  /** Slot of the oldest frame. */
  private head = 0;
  private count = 0;
  private nextFrameId = 0;
  private lastAtMs = Number.NEGATIVE_INFINITY;
  /** The longest frame ever held: bounds how far back a time-range search must look. */
  private maxDurationMs = 0;
  private dropped = 0;

  constructor(options: RingBufferOptions) {
    const { capacity } = options;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new AppError('AUDIO_BUFFER_CONFIG_INVALID', `ring buffer capacity must be a whole number >= 1, got ${capacity}`);
    }
    this.name = options.name ?? 'audio';
    this.capacity = capacity;
    this.sampleRate = options.sampleRate ?? SAMPLE_RATE;
    this.channels = options.channels ?? 1;
    if (!Number.isInteger(this.sampleRate) || this.sampleRate <= 0 || !Number.isInteger(this.channels) || this.channels <= 0) {
      throw new AppError('AUDIO_BUFFER_CONFIG_INVALID', `ring buffer format ${this.sampleRate} Hz x ${this.channels} channel(s) is not valid`);
    }
    this.slots = new Array<BufferedFrame | undefined>(capacity).fill(undefined);
    this.onOverrun = options.onOverrun;
  }

  get size(): number {
    return this.count;
  }

  /** Frames dropped since the buffer was made. */
  get totalDropped(): number {
    return this.dropped;
  }

  /** The id the next pushed frame gets. */
  get nextId(): number {
    return this.nextFrameId;
  }

  get oldest(): BufferedFrame | undefined {
    return this.count === 0 ? undefined : this.at(0);
  }

  get newest(): BufferedFrame | undefined {
    return this.count === 0 ? undefined : this.at(this.count - 1);
  }

  /** Stores one frame; reports an overrun when the oldest had to go. */
  push(input: FrameInput): BufferedFrame {
    return this.pushMany([input])[0]!;
  }

  /**
   * Stores frames in order; everything dropped to make room is reported once,
   * so a long chunk split into frames gives one overrun, not one per frame.
   */
  pushMany(inputs: readonly FrameInput[]): BufferedFrame[] {
    // Build (and so validate) every frame first: a bad one stores nothing.
    let previousAtMs = this.lastAtMs;
    const frames = inputs.map((input, i) => {
      const frame = this.makeFrame(input, this.nextFrameId + i, previousAtMs);
      previousAtMs = frame.atMs;
      return frame;
    });
    let report: Omit<OverrunReport, 'totalDropped'> | undefined;
    for (const frame of frames) {
      if (this.count === this.capacity) {
        const old = this.slots[this.head]!;
        this.slots[this.head] = undefined;
        this.head = (this.head + 1) % this.capacity;
        this.count--;
        this.dropped++;
        const end = old.atMs + old.durationMs;
        report = report
          ? { ...report, dropped: report.dropped + 1, toId: old.id, toMs: end, droppedMs: report.droppedMs + old.durationMs }
          : { buffer: this.name, dropped: 1, fromId: old.id, toId: old.id, fromMs: old.atMs, toMs: end, droppedMs: old.durationMs, capacity: this.capacity };
      }
      this.slots[(this.head + this.count) % this.capacity] = frame;
      this.count++;
      this.nextFrameId++;
      this.lastAtMs = frame.atMs;
      this.maxDurationMs = Math.max(this.maxDurationMs, frame.durationMs);
    }
    if (report) this.onOverrun?.({ ...report, totalDropped: this.dropped });
    return frames;
  }

  /** The frame with `id`, while it is still held. */
  byId(id: number): BufferedFrame | undefined {
    const i = this.firstIdAtLeast(id);
    const frame = i < this.count ? this.at(i) : undefined;
    return frame?.id === id ? frame : undefined;
  }

  /** Held frames with ids >= `id`, oldest first (from the oldest held when `id` was dropped). */
  since(id: number): BufferedFrame[] {
    return this.slice(this.firstIdAtLeast(id), this.count);
  }

  /** Held frames that overlap [fromMs, toMs), oldest first. */
  range(fromMs: number, toMs: number): BufferedFrame[] {
    if (this.count === 0 || !(toMs > fromMs)) return [];
    // atMs never decreases, so both ends are binary searches; a frame that
    // starts before fromMs can still overlap it, by up to the longest duration.
    const lo = this.firstAtOrAfter(fromMs - this.maxDurationMs);
    const hi = this.firstAtOrAfter(toMs);
    return this.slice(lo, hi).filter((frame) => frame.atMs + frame.durationMs > fromMs);
  }

  /** All held frames, oldest first. */
  frames(): BufferedFrame[] {
    return this.slice(0, this.count);
  }

  /**
   * Drops what starts at or after `atMs` from the newest end, and cuts a frame
   * that straddles it: audio queued for the speaker that a barge-in cleared
   * will never play, so it must not serve as echo reference. Returns how many
   * whole frames went. Ids are not reused.
   */
  dropNewerThan(atMs: number): number {
    let removed = 0;
    while (this.count > 0 && this.at(this.count - 1).atMs >= atMs) {
      this.slots[(this.head + this.count - 1) % this.capacity] = undefined;
      this.count--;
      removed++;
    }
    const last = this.newest;
    if (last && last.atMs + last.durationMs > atMs) {
      const keep = Math.round(((atMs - last.atMs) * this.sampleRate) / 1000) * this.channels;
      const samples = last.samples.slice(0, keep);
      const durationMs = (samples.length / this.channels / this.sampleRate) * 1000;
      this.slots[(this.head + this.count - 1) % this.capacity] = { ...last, samples, durationMs };
    }
    this.lastAtMs = this.newest?.atMs ?? Number.NEGATIVE_INFINITY;
    return removed;
  }

  /** Forgets every frame; ids keep counting up, and timestamps may start again anywhere. */
  clear(): void {
    this.slots.fill(undefined);
    this.head = 0;
    this.count = 0;
    this.lastAtMs = Number.NEGATIVE_INFINITY;
    this.maxDurationMs = 0;
  }

  private makeFrame(input: FrameInput, id: number, previousAtMs: number): BufferedFrame {
    const { samples, atMs } = input;
    if (!Number.isFinite(atMs)) throw new AppError('AUDIO_BUFFER_TIMESTAMP_INVALID', `${this.name} frame timestamp ${atMs} is not finite`);
    // Time-range reads binary-search on atMs; a clock that steps back is a bug upstream, not something to paper over.
    if (atMs < previousAtMs) {
      throw new AppError('AUDIO_BUFFER_TIMESTAMP_INVALID', `${this.name} frame at ${atMs} ms is older than the previous one at ${previousAtMs} ms`);
    }
    if (samples.length % this.channels !== 0) {
      throw new AppError('AUDIO_FORMAT_INVALID', `cannot store ${samples.length} samples as whole frames of ${this.channels} channel(s)`);
    }
    const durationMs = (samples.length / this.channels / this.sampleRate) * 1000;
    return { id, atMs, sampleRate: this.sampleRate, channels: this.channels, durationMs, samples: samples.slice() };
  }

  private at(offset: number): BufferedFrame {
    return this.slots[(this.head + offset) % this.capacity]!;
  }

  private slice(from: number, to: number): BufferedFrame[] {
    const out: BufferedFrame[] = [];
    for (let i = from; i < to; i++) out.push(this.at(i));
    return out;
  }

  /** Logical index of the first frame with id >= `id` (count when none). */
  private firstIdAtLeast(id: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).id < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Logical index of the first frame with atMs >= t (count when none). */
  private firstAtOrAfter(t: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).atMs < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
