/**
 * The speakers, kept open across the sound server's restarts: while the
 * output works every call goes to it; once it is lost (stall-watch.ts: the
 * server went away) writes and drains throw AUDIO_DEVICE_LOST at once, so a
 * reply under way ends instead of waiting forever, and a new output is
 * opened with a short backoff until one really plays.
 */
import { AppError } from '../../errors/index.js';
import { systemClock, type AudioClock } from '../audio/index.js';
import type { AudioOutput } from '../types.js';
import { keepReopening, type DeviceHealth } from './device-health.js';

/** An output that says when it stopped (`lost`) and when it first played (`ready`): PortAudioOutput. */
export interface LosableOutput extends AudioOutput {
  readonly lost: Promise<AppError>;
  readonly ready: Promise<void>;
}

export interface RecoveringOutputOptions {
  /** Opens the device afresh (chooses it by name again: its number can change when the server returns). */
  open: () => LosableOutput;
  health: DeviceHealth;
  /** The device as config names it (`[audio] output`), for messages. */
  deviceName: string;
  clock?: AudioClock;
  delaysMs?: readonly number[];
  /** A reopened output that takes no chunk within this is not back yet. Default 5000 (its own first-chunk watch usually says so first). */
  readyTimeoutMs?: number;
}

export class RecoveringOutput implements AudioOutput {
  readonly name: string;
  private current: LosableOutput | undefined;
  private readonly stopped = new AbortController();
  private recovering: Promise<void> = Promise.resolve();
  private readonly clock: AudioClock;

  /** Opens the device now: one that cannot open at start-up is the caller's error, as it always was. */
  constructor(private readonly options: RecoveringOutputOptions) {
    this.clock = options.clock ?? systemClock;
    const first = options.open();
    this.name = first.name;
    this.adopt(first);
  }

  write(samples: Int16Array): Promise<void> {
    const output = this.current;
    return output ? output.write(samples) : Promise.reject(this.missing());
  }

  drain(): Promise<void> {
    const output = this.current;
    return output ? output.drain() : Promise.reject(this.missing());
  }

  clear(): void {
    this.current?.clear();
  }

  async close(): Promise<void> {
    this.stopped.abort();
    await this.recovering;
    const output = this.current;
    this.current = undefined;
    await output?.close();
  }

  private missing(): AppError {
    return this.options.health.missingError('output') ?? new AppError('AUDIO_DEVICE_LOST', `the speaker (${this.options.deviceName}) is missing`, { retryable: true });
  }

  private adopt(output: LosableOutput): void {
    this.current = output;
    // `lost` only resolves (with the error that lost the device).
    void output.lost.then((error) => {
      if (this.current !== output || this.stopped.signal.aborted) return;
      this.current = undefined;
      this.options.health.lost('output', this.options.deviceName, error.message);
      // Closing a lost device may fail too; the loss is already reported (health.lost) and the device is not used again.
      void output.close();
      this.recovering = this.recover();
    });
  }

  private async recover(): Promise<void> {
    const output = await keepReopening(
      async () => {
        const candidate = this.options.open();
        if (await this.plays(candidate)) return candidate;
        await candidate.close();
        return undefined;
      },
      { ...(this.options.delaysMs ? { delaysMs: this.options.delaysMs } : {}), sleep: (ms, signal) => this.clock.sleep(ms, signal), signal: this.stopped.signal },
    );
    if (!output) return;
    if (this.stopped.signal.aborted) {
      await output.close();
      return;
    }
    this.adopt(output);
    this.options.health.restored('output', this.options.deviceName);
  }

  /** Whether a freshly opened output takes audio: opening can succeed on a server that is not serving yet. */
  private async plays(candidate: LosableOutput): Promise<boolean> {
    const timeout = new AbortController();
    try {
      return await Promise.race([
        candidate.ready.then(() => true),
        candidate.lost.then(() => false),
        this.clock.sleep(this.options.readyTimeoutMs ?? 5000, timeout.signal).then(
          () => false,
          () => false,
        ),
      ]);
    } finally {
      timeout.abort();
    }
  }
}
