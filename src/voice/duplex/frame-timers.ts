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
    const id = this.next++;
    this.pending.set(id, { atMs: this.clock() + ms, fire });
    return id;
  }

  clear(id: unknown): void {
    this.pending.delete(id as number);
  }

  /** Fires, in the order they were set, the timers that are due. */
  tick(): void {
    const now = this.clock();
    for (const [id, timer] of [...this.pending]) {
      if (timer.atMs > now) continue;
      this.pending.delete(id);
      timer.fire();
    }
  }
}
