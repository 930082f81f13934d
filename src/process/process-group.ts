import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every child runs in a process group of its own (spawned detached), so
 * that stopping it also stops whatever it started: a tool a server ran must
 * not outlive the server. These are the group primitives stop.ts builds on.
 */

/** Whether any process of the group still runs. Zombies do not count. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // kill(0) also answers for zombies, which an init that never reaps (some
  // containers) keeps forever: look for a live member before waiting on one.
  return hasLiveMember(pgid);
}

/** Whether a process with this pid exists (EPERM: it runs, as someone else: perhaps a reused pid). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the signal reached anyone: false once the group is gone (ESRCH). */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    return process.kill(-pgid, signal);
  } catch {
    return false;
  }
}

/** Resolves true once `done()` holds, false after `timeoutMs`. Timers are unref'd. */
export async function pollUntil(done: () => boolean, timeoutMs: number, intervalMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await delay(Math.min(intervalMs, Math.max(1, deadline - Date.now())));
  }
  return true;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function hasLiveMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true; // No /proc: trust kill(0).
  }
  const wanted = String(pgid);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // Ended while we looked.
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[2] === wanted && fields[0] !== 'Z') return true;
  }
  return false;
}
