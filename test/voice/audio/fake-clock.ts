import type { AudioClock } from '../../../src/voice/audio/index.js';

/** A clock that only moves when told to, or by the time a sleeper asks for: no real waiting. */
export class FakeClock implements AudioClock {
  nowMs = 0;
  readonly sleeps: number[] = [];

  now(): number {
    return this.nowMs;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.nowMs += ms;
  }

  advance(ms: number): void {
    this.nowMs += ms;
  }
}
