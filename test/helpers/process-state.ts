import { readFileSync } from 'node:fs';

/**
 * Whether a process still runs. A zombie does not: it has ended and only
 * waits for its parent (or init, for an orphan) to collect its status.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
