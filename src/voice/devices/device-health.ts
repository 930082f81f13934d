/**
 * Which sound devices the voice has lost, and the loop that opens one
 * again. A desktop's sound server restarts on every headset plug and after
 * a suspend; the voice must say what is missing while it is missing and
 * come back by itself, never by a restart of the daemon.
 */
import { AppError, isAppError, messageOf, type ErrorCode } from '../../errors/index.js';
import type { MissingDevice } from '../host-ports.js';

export type DeviceRole = MissingDevice['device'];

export type DeviceChange = { status: 'lost'; missing: MissingDevice } | { status: 'restored'; device: DeviceRole; message: string; missingMs: number };

const WORDS: Record<DeviceRole, string> = { input: 'microphone', output: 'speaker' };

/** The codes that mean the device is gone or stopped (not a bad config, not a busy capture). */
const LOSS_CODES: readonly ErrorCode[] = ['AUDIO_DEVICE_LOST', 'AUDIO_DEVICE_FAILED', 'AUDIO_DEVICE_OPEN_FAILED', 'AUDIO_DEVICE_NOT_FOUND'];

export function isDeviceLoss(error: unknown): error is AppError {
  return isAppError(error) && LOSS_CODES.includes(error.code);
}

export class DeviceHealth {
  private readonly gone = new Map<DeviceRole, MissingDevice>();
  private readonly listeners = new Set<(change: DeviceChange) => void>();

  constructor(private readonly clock: () => number = Date.now) {}

  get missing(): MissingDevice[] {
    return [...this.gone.values()];
  }

  /** The device `name` stopped; `reason` says how. Reported once until it is restored. */
  lost(device: DeviceRole, name: string, reason: string): void {
    if (this.gone.has(device)) return;
    const message = `the ${WORDS[device]} (${name}) is missing: ${reason}. The voice comes back by itself when it returns`;
    const missing: MissingDevice = { device, message, sinceMs: this.clock() };
    this.gone.set(device, missing);
    this.tell({ status: 'lost', missing });
  }

  restored(device: DeviceRole, name: string): void {
    const was = this.gone.get(device);
    if (!was) return;
    this.gone.delete(device);
    const missingMs = this.clock() - was.sinceMs;
    this.tell({ status: 'restored', device, message: `the ${WORDS[device]} (${name}) is back after ${(missingMs / 1000).toFixed(1)} s`, missingMs });
  }

  /** A listener that throws never stops the others. Returns the unsubscribe. */
  subscribe(listener: (change: DeviceChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The error a refused recording or reply carries while a device is missing. */
  missingError(device: DeviceRole): AppError | undefined {
    const missing = this.gone.get(device);
    return missing && new AppError('AUDIO_DEVICE_LOST', missing.message, { retryable: true });
  }

  private tell(change: DeviceChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A reporter's bug must not stop the others or the device's recovery.
      }
    }
  }
}

export interface ReopenOptions {
  /**
   * Waits between attempts: short first (a sound server is back within a
   * second or two of a restart), then every second, so a device that
   * returns is open again within about 1 s plus its open.
   */
  delaysMs?: readonly number[];
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  signal: AbortSignal;
}

export const REOPEN_DELAYS_MS: readonly number[] = [100, 250, 500, 1000];

/**
 * Tries `attempt` after each delay (the last one repeated) until it gives a
 * device or `signal` aborts (then undefined). An attempt's failure is
 * expected while the device is away: only the last reason is kept.
 */
export async function keepReopening<T>(attempt: () => Promise<T | undefined>, options: ReopenOptions, onFailure?: (reason: string) => void): Promise<T | undefined> {
  const delays = options.delaysMs ?? REOPEN_DELAYS_MS;
  for (let tries = 0; !options.signal.aborted; tries++) {
    try {
      await options.sleep(delays[Math.min(tries, delays.length - 1)]!, options.signal);
    } catch {
      return undefined;
    }
    if (options.signal.aborted) return undefined;
    try {
      const opened = await attempt();
      if (opened !== undefined) return opened;
    } catch (error) {
      onFailure?.(messageOf(error));
    }
  }
  return undefined;
}
