/**
 * Progress of the memory's long work: the vectors computed again (after an
 * embedder change or `memory rebuild`) and the index built from them (six
 * minutes at 100k records, the graph inserts). Reported synchronously, a
 * batch at a time: a terminal and a pipe take a write at once on Linux, so a
 * line or a notification goes out even while the index build holds the thread.
 */
export type MemoryTask = 'embedding' | 'indexing';

export interface MemoryProgress {
  task: MemoryTask;
  done: number;
  total: number;
}

/** A progress report with what a reader wants to see: the rate and the time left. */
export interface TimedProgress extends MemoryProgress {
  elapsedMs: number;
  /** Records a second so far; 0 before the first second's worth. */
  ratePerS: number;
  /** Seconds left at that rate; undefined until there is a rate. */
  remainingS: number | undefined;
}

export type ProgressListener = (progress: MemoryProgress) => void;

/** Wraps `listener` so each report carries its task's rate and time left, timed from the task's first report. */
export function timedProgress(listener: (progress: TimedProgress) => void, clock: () => number = Date.now): ProgressListener {
  const startedAt = new Map<MemoryTask, number>();
  return (progress) => {
    const now = clock();
    const started = startedAt.get(progress.task) ?? now;
    startedAt.set(progress.task, started);
    const elapsedMs = now - started;
    const ratePerS = elapsedMs > 0 ? (progress.done * 1000) / elapsedMs : 0;
    const remainingS = ratePerS > 0 ? Math.max(0, progress.total - progress.done) / ratePerS : undefined;
    listener({ ...progress, elapsedMs, ratePerS, remainingS });
  };
}

/** At most one report per `intervalMs` for each task, and always its first and its last (done = total). */
export function throttledProgress(listener: ProgressListener, intervalMs: number, clock: () => number = Date.now): ProgressListener {
  const lastAt = new Map<MemoryTask, number>();
  return (progress) => {
    const now = clock();
    const last = lastAt.get(progress.task);
    if (last !== undefined && progress.done < progress.total && now - last < intervalMs) return;
    lastAt.set(progress.task, now);
    listener(progress);
  };
}
