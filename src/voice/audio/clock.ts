/**
 * Wall-clock pacing for inputs and outputs that imitate a device. Injected so
 * tests run paced code on a fake clock without sleeping.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { FRAME_MS, type AudioFrame } from '../types.js';

export interface AudioClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Waits `ms`; rejects (with the signal's reason) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: AudioClock = {
  now: () => performance.now(),
  sleep: async (ms, signal) => {
    await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  },
};

/**
 * Sleeps until `atMs` on `clock`; false when `signal` aborted first (the
 * caller stops quietly: an abort is how a device input is asked to end).
 */
export async function sleepUntil(clock: AudioClock, atMs: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  const wait = atMs - clock.now();
  if (wait <= 0) return true;
  try {
    await clock.sleep(wait, signal);
  } catch (error) {
    if (signal?.aborted) return false;
    throw error;
  }
  return !signal?.aborted;
}

export interface PacedFramesOptions {
  /** Frame n is handed out (n + 1) x FRAME_MS after the start, as a device would deliver it. */
  realtime: boolean;
  clock: AudioClock;
  signal?: AbortSignal;
  /** The input was closed: stop before the next frame. */
  stopped: () => boolean;
}

/** Frames 0..count-1 with the samples `samplesAt` gives, paced when asked; ends early on abort or close. */
export async function* pacedFrames(count: number, samplesAt: (index: number) => Int16Array, options: PacedFramesOptions): AsyncIterable<AudioFrame> {
  const { clock, signal } = options;
  const startedMs = clock.now();
  for (let index = 0; index < count; index++) {
    if (options.realtime && !(await sleepUntil(clock, startedMs + (index + 1) * FRAME_MS, signal))) return;
    if (options.stopped() || signal?.aborted) return;
    yield { samples: samplesAt(index), index, atMs: index * FRAME_MS };
  }
}
