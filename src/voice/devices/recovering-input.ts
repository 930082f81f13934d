/**
 * The microphone, kept across the sound server's restarts: recordings go
 * to the device; a recording that fails because the device went away
 * (AUDIO_DEVICE_LOST and the like) marks it missing, and from then on
 * frames() throws at once while a probe opens it again, with a short
 * backoff, until a capture really delivers a frame.
 */
import { AppError } from '../../errors/index.js';
import { systemClock, type AudioClock } from '../audio/index.js';
import type { AudioFrame, AudioInput } from '../types.js';
import { isDeviceLoss, keepReopening, type DeviceHealth } from './device-health.js';

export interface RecoveringInputOptions {
  /** Chooses the device afresh (its number can change when the server returns); capture starts with frames(). */
  open: () => AudioInput;
  health: DeviceHealth;
  /** The device as config names it (`[audio] input`), for messages. */
  deviceName: string;
  clock?: AudioClock;
  delaysMs?: readonly number[];
  /** A probe capture that delivers no frame within this has not come back. Default 5000 (its own first-chunk watch usually says so first). */
  probeTimeoutMs?: number;
}

export class RecoveringInput implements AudioInput {
  readonly name: string;
  private current: AudioInput | undefined;
  private readonly stopped = new AbortController();
  private recovering: Promise<void> = Promise.resolve();
  private readonly clock: AudioClock;

  /** Chooses the device now: one that does not exist at start-up is the caller's error, as it always was. */
  constructor(private readonly options: RecoveringInputOptions) {
    this.clock = options.clock ?? systemClock;
    const first = options.open();
    this.name = first.name;
    this.current = first;
  }

  async *frames(options: { signal?: AbortSignal } = {}): AsyncIterable<AudioFrame> {
    const input = this.current;
    if (!input) throw this.missing();
    try {
      yield* input.frames(options);
    } catch (error) {
      if (isDeviceLoss(error) && this.current === input && !this.stopped.signal.aborted) this.lose(input, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.stopped.abort();
    await this.recovering;
    const input = this.current;
    this.current = undefined;
    await input?.close();
  }

  private missing(): AppError {
    return this.options.health.missingError('input') ?? new AppError('AUDIO_DEVICE_LOST', `the microphone (${this.options.deviceName}) is missing`, { retryable: true });
  }

  private lose(input: AudioInput, error: AppError): void {
    this.current = undefined;
    this.options.health.lost('input', this.options.deviceName, error.message);
    // Closing a lost device may fail too; the loss is already reported (health.lost) and the device is not used again.
    void input.close();
    this.recovering = this.recover();
  }

  private async recover(): Promise<void> {
    const input = await keepReopening(
      async () => {
        const candidate = this.options.open();
        if (await this.delivers(candidate)) return candidate;
        await candidate.close();
        return undefined;
      },
      { ...(this.options.delaysMs ? { delaysMs: this.options.delaysMs } : {}), sleep: (ms, signal) => this.clock.sleep(ms, signal), signal: this.stopped.signal },
    );
    if (!input) return;
    if (this.stopped.signal.aborted) {
      await input.close();
      return;
    }
    this.current = input;
    this.options.health.restored('input', this.options.deviceName);
  }

  /** A capture of one frame: opening can succeed on a server that is not serving yet. Throws why it cannot open. */
  private async delivers(candidate: AudioInput): Promise<boolean> {
    const stop = new AbortController();
    // The sleep rejects when the probe ends first (stop aborted): then there is nothing to time out.
    void this.clock.sleep(this.options.probeTimeoutMs ?? 5000, stop.signal).then(
      () => stop.abort(),
      () => undefined,
    );
    const frames = candidate.frames({ signal: stop.signal })[Symbol.asyncIterator]();
    try {
      return (await frames.next()).done !== true;
    } finally {
      stop.abort();
      await frames.return?.();
    }
  }
}
