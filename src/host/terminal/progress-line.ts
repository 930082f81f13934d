/**
 * Long work on a terminal: one line per task, rewritten in place, such as
 * `memory: indexing 12,288 of 100,000 records (410/s, 3 min 34 s left)`.
 * Not on a terminal (a pipe, a log file, a service), nothing is written.
 */
import { throttledProgress, timedProgress, type ProgressListener, type TimedProgress } from '../../memory/index.js';

const TASK_WORDS: Record<TimedProgress['task'], string> = { embedding: 'computing vectors for', indexing: 'indexing' };
const REDRAW_MS = 200;

export interface ProgressLine {
  listener: ProgressListener;
  /** Ends the line (a newline after the last redraw), if one was drawn. */
  end(): void;
}

export function progressLine(stream: NodeJS.WritableStream & { isTTY?: boolean }, label: string, clock: () => number = Date.now): ProgressLine {
  if (stream.isTTY !== true) return { listener: () => undefined, end: () => undefined };
  let task: TimedProgress['task'] | undefined;
  const draw = (progress: TimedProgress): void => {
    if (task !== undefined && task !== progress.task) stream.write('\n');
    task = progress.task;
    stream.write(`\r${describeProgress(label, progress)}\x1b[K`);
    // A finished task keeps its line: what is written next starts below it.
    if (progress.done >= progress.total) {
      stream.write('\n');
      task = undefined;
    }
  };
  return {
    listener: throttledProgress(timedProgress(draw, clock), REDRAW_MS, clock),
    end: () => {
      if (task !== undefined) stream.write('\n');
      task = undefined;
    },
  };
}

/** Pure: the words of one redraw. */
export function describeProgress(label: string, progress: TimedProgress): string {
  const count = (n: number) => Math.round(n).toLocaleString('en-US');
  const head = `${label}: ${TASK_WORDS[progress.task]} ${count(progress.done)} of ${count(progress.total)} records`;
  if (progress.done >= progress.total) return `${head}, done in ${duration(progress.elapsedMs / 1000)}`;
  if (progress.remainingS === undefined) return head;
  return `${head} (${count(progress.ratePerS)}/s, ${duration(progress.remainingS)} left)`;
}

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
}
