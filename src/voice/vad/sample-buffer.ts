/** A growable run of samples addressed by absolute position since the stream began. */
export class SampleBuffer {
  private data = new Int16Array(16_000);
  private first = 0;
  private length = 0;

  /** Absolute position of the oldest sample kept. */
  get start(): number {
    return this.first;
  }

  /** Absolute position after the newest sample. */
  get end(): number {
    return this.first + this.length;
  }

  append(samples: Int16Array): void {
    const needed = this.length + samples.length;
    if (needed > this.data.length) {
      const grown = new Int16Array(Math.max(needed, this.data.length * 2));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    this.data.set(samples, this.length);
    this.length = needed;
  }

  /** A copy of [from, to), clamped to what is kept. */
  slice(from: number, to: number): Int16Array {
    const a = Math.max(from, this.first) - this.first;
    const b = Math.min(to, this.end) - this.first;
    return this.data.slice(a, Math.max(a, b));
  }

  /** Forgets everything before `position`. */
  discardBefore(position: number): void {
    const drop = Math.min(position - this.first, this.length);
    if (drop <= 0) return;
    this.data.copyWithin(0, drop, this.length);
    this.length -= drop;
    this.first += drop;
  }

  clear(): void {
    this.first = 0;
    this.length = 0;
  }
}
