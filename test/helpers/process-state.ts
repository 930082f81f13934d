import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/**
 * The processes whose parent is `parent`, zombies included: a child that
 * ended but was never waited for still shows here, with state Z.
 */
export function childProcesses(parent: number = process.pid): { pid: number; state: string }[] {
  const children: { pid: number; state: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended while we looked
    }
    // The command name is in parentheses and may hold spaces: read after its last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === parent) children.push({ pid: Number(entry), state: state ?? '?' });
  }
  return children.sort((a, b) => a.pid - b.pid);
}

/** This process's open descriptors by kind ('pipe', 'socket', 'anon_inode', or 'file'). */
export function openDescriptors(): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the descriptor readdir itself used, closed by now
    }
    const kind = /^(pipe|socket|anon_inode):/.exec(target)?.[1] ?? 'file';
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}
