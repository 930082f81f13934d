/**
 * When a captured sample was captured, on the monotonic clock, from when the
 * chunks holding it reached us and how many samples came before them.
 *
 * A chunk's last sample was captured just before the chunk arrived, so
 * `arrival - position` is the stream's start time plus whatever delay that
 * chunk met on its way (the PortAudio callback, naudiodon's queue, the
 * thread pool, a busy event loop). The smallest value is the least delayed
 * chunk: the best estimate of the start. Taking the minimum over a sliding
 * window (not over all time) lets the estimate follow a device clock that
 * drifts against ours (100 ppm is 0.5 ms over the 5 s window) and audio the
 * device dropped on an overflow (the position then lags, and every later
 * estimate is later by what was lost).
 */
export class CaptureClock {
  readonly sampleRate: number;
  private readonly windowMs: number;
  /** Candidate minimums, oldest first, origins increasing: the front is the window's minimum. */
  private readonly candidates: { arrivalMs: number; originMs: number }[] = [];

  constructor(sampleRate: number, windowMs = 5000) {
    this.sampleRate = sampleRate;
    this.windowMs = windowMs;
  }

  /** A chunk ending `endSample` samples after the start arrived at `arrivalMs`. */
  observe(arrivalMs: number, endSample: number): void {
    const originMs = arrivalMs - (endSample * 1000) / this.sampleRate;
    while (this.candidates.length > 0 && this.candidates[this.candidates.length - 1]!.originMs >= originMs) this.candidates.pop();
    this.candidates.push({ arrivalMs, originMs });
    while (this.candidates.length > 1 && this.candidates[0]!.arrivalMs < arrivalMs - this.windowMs) this.candidates.shift();
  }

  /** Whether any chunk has been observed (before that, times are unknown). */
  get started(): boolean {
    return this.candidates.length > 0;
  }

  /** When sample `sample` (fractional allowed) was captured, in ms; NaN before the first chunk. */
  timeOf(sample: number): number {
    const front = this.candidates[0];
    return front === undefined ? Number.NaN : front.originMs + (sample * 1000) / this.sampleRate;
  }
}
