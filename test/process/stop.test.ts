import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_STOP_TIMINGS, allowListedEnv, spawnInGroup, stopGroup, terminateGroup } from '../../src/process/index.js';
import { isRunning } from '../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

let dir: TempDir;
let started = 0;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await makeTempDir('da-stop-');
});
afterEach(() => {
  vi.useRealTimers();
  for (const child of children.splice(0)) {
    if (child.pid !== undefined && isRunning(child.pid)) child.kill('SIGKILL');
  }
});
afterAll(() => dir.remove());

/** A shell in its own group that logs the signals it gets and starts a `sleep` grandchild. */
async function start(script: string): Promise<{ child: ChildProcess; grandchild: number; log: () => Promise<string> }> {
  started += 1;
  const logFile = `${dir.path}/log-${started}`;
  const pidFile = `${dir.path}/pid-${started}`;
  const child = spawnInGroup('sh', ['-c', `${script}\nsleep 30 & echo $! > ${pidFile}\necho started\nwhile :; do sleep 0.05; done`], {
    env: { ...allowListedEnv(), LOG: logFile },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  children.push(child);
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  const grandchild = Number(await readFile(pidFile, 'utf8'));
  return { child, grandchild, log: () => readFile(logFile, 'utf8').catch(() => '') };
}

const exitOf = (child: ChildProcess): Promise<NodeJS.Signals | number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.signalCode ?? child.exitCode)
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));

describe('stopGroup: stdin closed, then SIGTERM, then SIGKILL, to the whole group', () => {
  it('lets a child that leaves when stdin closes go without a signal, and stops its group', async () => {
    // A background job's stdin is /dev/null unless given: fd 3 is the shell's stdin.
    const { child, grandchild, log } = await start('trap "echo TERM >> $LOG" TERM\ntrap "exit 7" USR1\nexec 3<&0\n(cat <&3 >/dev/null; kill -USR1 $$) &');
    const begun = Date.now();
    await stopGroup(child, { stdinGraceMs: 5000, termGraceMs: 5000, killGraceMs: 5000 });
    expect(Date.now() - begun).toBeLessThan(2500);
    expect(await exitOf(child)).toBe(7);
    expect(await log()).toBe('');
    expect(isRunning(grandchild)).toBe(false);
  });

  it('goes on to SIGTERM, then SIGKILL, each after its grace', async () => {
    const { child, grandchild, log } = await start('trap "echo TERM >> $LOG" TERM');
    const begun = Date.now();
    await stopGroup(child, { stdinGraceMs: 200, termGraceMs: 200, killGraceMs: 2000 });
    expect(Date.now() - begun).toBeGreaterThanOrEqual(400 - 20);
    expect(await exitOf(child)).toBe('SIGKILL');
    expect(await log()).toContain('TERM');
    expect(isRunning(grandchild)).toBe(false);
  });

  it('with zero graces signals at once, without a timer (fake timers do not hold it up)', async () => {
    const { child, grandchild } = await start('');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Not awaited: the test is that it signals at once, which the child's exit below shows (stopGroup never rejects).
    void stopGroup(child, { stdinGraceMs: 0, termGraceMs: 0, killGraceMs: 0 });
    vi.useRealTimers();
    expect(await exitOf(child)).not.toBeNull();
    await waitFor(() => (isRunning(grandchild) ? undefined : true), 'the grandchild to end', 2000);
  });

  it('still stops a child some spawn function started outside a group of its own', async () => {
    const child = spawn('sh', ['-c', 'trap "" TERM; echo ready; while :; do sleep 0.05; done'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(child);
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    await stopGroup(child, { termGraceMs: 100, killGraceMs: 2000 });
    expect(await exitOf(child)).toBe('SIGKILL');
  });

  it('is a no-op for a child that never started, and joins a stop already under way', async () => {
    const missing = spawnInGroup('no-such-program-here', [], { env: allowListedEnv(), stdio: 'ignore' });
    missing.on('error', () => undefined);
    await stopGroup(missing);

    const { child, log } = await start('trap "echo TERM >> $LOG" TERM');
    const first = terminateGroup(child.pid!, { termGraceMs: 300, killGraceMs: 2000 }, child);
    const second = stopGroup(child, { stdinGraceMs: 0, termGraceMs: 300, killGraceMs: 2000 });
    await Promise.all([first, second]);
    expect((await log()).match(/TERM/g)).toHaveLength(1);
  });

  it("has the MCP SDK's 2 s a step as its defaults", () => {
    expect(DEFAULT_STOP_TIMINGS).toEqual({ stdinGraceMs: 2000, termGraceMs: 2000, killGraceMs: 2000 });
  });
});
