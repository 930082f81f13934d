/**
 * Wall-clock pacing for inputs and outputs that imitate a device. Injected so
 * tests run paced code on a fake clock without sleeping.
 */
import { setTimeout as delay } from 'node:timers/promises';

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
