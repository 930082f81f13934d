import { readFileSync } from 'node:fs';
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

/**
 * CPU seconds this process and its waited-for children have used: utime,
 * stime, cutime and cstime of /proc/self/stat. The resident decoder's
 * thread-pool work counts as the process's own; a spawned recognizer's
 * once it has exited and been reaped.
 */
export function cpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The command name in parentheses may hold spaces: fields count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3 of stat(5), so utime (14) .. cstime (17) are indexes 11..14 here.
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks / TICKS_PER_S;
}

/**
 * The event loop's delay while stretches of work run, pooled over them:
 * a 1 ms timer chain records how late each tick fired. (The built-in
 * monitorEventLoopDelay, disabled between stretches, reports the whole
 * pause as one delay when enabled again.)
 */
export class LoopDelay {
  private readonly histogram: RecordableHistogram = createHistogram();
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    if (this.timer) return;
    let due = performance.now() + TICK_MS;
    const tick = (): void => {
      const now = performance.now();
      // Recorded in microseconds: the histogram takes integers.
      this.histogram.record(Math.max(1, Math.round((now - due) * 1000)));
      due = now + TICK_MS;
      this.timer = setTimeout(tick, TICK_MS);
    };
    this.timer = setTimeout(tick, TICK_MS);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Percentile of the delays seen, in ms. */
  percentileMs(p: number): number {
    return this.histogram.percentile(p) / 1000;
  }

  maxMs(): number {
    return this.histogram.max / 1000;
  }
}

const TICK_MS = 1;
