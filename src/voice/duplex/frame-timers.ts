/**
 * Timers on the microphone's clock: checked once per captured frame (every
 * 20 ms), so a replay of the same audio, or a test in virtual time, fires
 * them at the same points of the audio as a live run does.
 */
export class FrameTimers {
  private next = 1;
  private readonly pending = new Map<number, { atMs: number; fire: () => void }>();

  constructor(private readonly clock: () => number) {}

  set(fire: () => void, ms: number): number {
    return this.setAt(fire, this.clock() + ms);
  }

  /** A timer due at `atMs` on the clock. */
  setAt(fire: () => void, atMs: number): number {
    const id = this.next++;
    this.pending.set(id, { atMs, fire });
    return id;
  }

  clear(id: unknown): void {
    this.pending.delete(id as number);
  }

  /** Fires, in the order they were set, the timers that are due. */
  tick(): void {
    const now = this.clock();
    for (const [id, timer] of [...this.pending]) {
      // One that fired before it in this tick may have cleared it.
      if (timer.atMs > now || !this.pending.has(id)) continue;
      this.pending.delete(id);
      timer.fire();
    }
  }
}
