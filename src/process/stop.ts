import type { ChildProcess } from 'node:child_process';
import { delay, groupAlive, pollUntil, signalGroup } from './process-group.js';

/** How long each step of a stop waits before the next, harder one. 0: the next step at once. */
export interface StopTimings {
  /** After closing stdin, before SIGTERM: the time a well-behaved child gets to leave on its own. */
  stdinGraceMs: number;
  /** After SIGTERM to the group, before SIGKILL. */
  termGraceMs: number;
  /** After SIGKILL, before giving up on the group (and, for a caller that reads pipes, on them). */
  killGraceMs: number;
}

// The MCP SDK's StdioClientTransport waits 2 s at each step too.
export const DEFAULT_STOP_TIMINGS: Readonly<StopTimings> = { stdinGraceMs: 2000, termGraceMs: 2000, killGraceMs: 2000 };

export interface StopOptions {
  /** Resolving it ends the wait after closing stdin early: a child that already misbehaves. */
  skipStdinGrace?: Promise<unknown>;
}

/**
 * The one stop of a child spawned in its own group (spawnInGroup, or a
 * caller's spawn with inOwnGroup's options): stdin closed, then SIGTERM, then SIGKILL, to the
 * whole group, so what the child started stops too. The stdin step is
 * skipped for a child without stdin or whose stdin is already closed, and
 * waits for the child itself; the signal steps wait for the whole group.
 * Timers are unref'd: a stop never keeps the process alive. A zero grace
 * goes on at once, without a timer (so fake timers do not hold up a kill).
 */
export async function stopGroup(child: ChildProcess, timings: Partial<StopTimings> = {}, options: StopOptions = {}): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return; // Never started.
  const { stdinGraceMs, ...signals } = { ...DEFAULT_STOP_TIMINGS, ...timings };
  const stdin = child.stdin;
  if (stdin && !stdin.writableEnded && !stdin.destroyed && !hasExited(child)) {
    const exited = stdinGraceMs > 0 ? new Promise<void>((resolve) => child.once('exit', () => resolve())) : undefined;
    stdin.end();
    if (exited) await Promise.race([exited, delay(stdinGraceMs), ...(options.skipStdinGrace ? [options.skipStdinGrace] : [])]);
  }
  await terminateGroup(pgid, signals, child);
}

const terminating = new WeakMap<ChildProcess, Promise<void>>();

/**
 * SIGTERM, then SIGKILL, to whatever of the group still runs: the child
 * when stopping it, its orphans after it exited. With the group's leader
 * given, a second call while one runs joins it (no second SIGTERM).
 */
export function terminateGroup(
  pgid: number,
  timings: Partial<Pick<StopTimings, 'termGraceMs' | 'killGraceMs'>> = {},
  leader?: ChildProcess,
): Promise<void> {
  const running = leader && terminating.get(leader);
  if (running) return running;
  const { termGraceMs, killGraceMs } = { ...DEFAULT_STOP_TIMINGS, ...timings };
  const stopping = escalate(pgid, termGraceMs, killGraceMs, leader);
  if (!leader) return stopping;
  terminating.set(leader, stopping);
  return stopping.finally(() => terminating.delete(leader));
}

async function escalate(pgid: number, termGraceMs: number, killGraceMs: number, leader: ChildProcess | undefined): Promise<void> {
  // A child some spawn function started without `detached` leads no group: then it alone is signalled.
  const loneLeader = (): boolean => leader !== undefined && !hasExited(leader);
  const gone = (): boolean => !groupAlive(pgid) && !loneLeader();
  const signal = (name: NodeJS.Signals): void => {
    if (!signalGroup(pgid, name) && loneLeader()) leader!.kill(name);
  };
  if (gone()) return;
  signal('SIGTERM');
  if (termGraceMs > 0 && (await pollUntil(gone, termGraceMs))) return;
  signal('SIGKILL');
  if (killGraceMs > 0) await pollUntil(gone, killGraceMs);
}

/**
 * SIGKILL to the group when this process exits without having stopped it
 * (a daemon that dies must not leave a model loaded on the GPU). Returns
 * the function that takes the hook back.
 */
export function killGroupAtExit(pgid: number): () => void {
  const onExit = (): void => {
    signalGroup(pgid, 'SIGKILL');
  };
  process.once('exit', onExit);
  return () => process.off('exit', onExit);
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}
