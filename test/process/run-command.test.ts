import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/process/index.js';
import { isRunning } from '../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

let dir: TempDir;
const PATH_ONLY = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

beforeAll(async () => {
  dir = await makeTempDir('da-run-command-');
});
afterAll(() => dir.remove());

describe('runCommand', () => {
  it('gives the command exactly the environment it is handed, nothing of ours added', async () => {
    const outcome = await runCommand(['sh', '-c', 'env'], { env: { ...PATH_ONLY, ONLY_THIS: '1' }, timeoutMs: 5000 });
    expect(outcome.kind).toBe('exited');
    if (outcome.kind !== 'exited') return;
    const names = outcome.stdout.split('\n').map((line) => line.split('=')[0]).filter((name) => name !== '');
    // sh itself adds PWD (and some builds SHLVL, _); HOME would be ours.
    expect(names).toContain('ONLY_THIS');
    expect(names).not.toContain('HOME');
  });

  it('runs without a shell: shell syntax is one literal argument', async () => {
    const outcome = await runCommand(['printf', '%s', '$(echo hi); echo no'], { env: PATH_ONLY, timeoutMs: 5000 });
    expect(outcome).toMatchObject({ kind: 'exited', exitCode: 0, stdout: '$(echo hi); echo no' });
  });

  it('keeps the first bytes of a long output, counts the rest, and the command still ends on its own', async () => {
    const outcome = await runCommand(['sh', '-c', 'head -c 100000 /dev/zero | tr "\\0" a; echo oops >&2; exit 4'], {
      env: PATH_ONLY,
      timeoutMs: 5000,
      maxStdoutBytes: 1000,
      stderrTailBytes: 3,
    });
    expect(outcome).toEqual({ kind: 'exited', exitCode: 4, signal: null, stdout: 'a'.repeat(1000), stdoutDroppedBytes: 99_000, stderrTail: 'ps\n' });
  });

  it('reports a signal death as the signal', async () => {
    expect(await runCommand(['sh', '-c', 'kill -9 $$'], { env: PATH_ONLY, timeoutMs: 5000 })).toMatchObject({ kind: 'exited', exitCode: null, signal: 'SIGKILL' });
  });

  it('answers what could not start with the system words for it', async () => {
    const script = await dir.write('not-executable.sh', '#!/bin/sh\n', 0o644);
    const cases: Array<[string[], { cwd?: string }, string, string]> = [
      [['no-such-program-here'], {}, 'ENOENT', 'No such file or directory'],
      [[script], {}, 'EACCES', 'Permission denied'],
      [['echo', 'x'.repeat(1_000_000)], {}, 'E2BIG', 'Argument list too long'],
      [['echo', 'a\u0000b'], {}, 'ERR_INVALID_ARG_VALUE', 'an argument or environment value holds a NUL byte'],
      [['true'], { cwd: `${dir.path}/no-such-folder` }, 'ENOENT', 'No such file or directory'],
      [[''], {}, 'EINVAL', 'empty command'],
    ];
    for (const [argv, extra, errno, reason] of cases) {
      expect(await runCommand(argv, { env: PATH_ONLY, timeoutMs: 5000, ...extra })).toEqual({ kind: 'spawn-error', errno, reason });
    }
    expect(await runCommand(['true'], { env: { ...PATH_ONLY, BAD: 'a\u0000b' }, timeoutMs: 5000 })).toEqual({
      kind: 'spawn-error',
      errno: 'ERR_INVALID_ARG_VALUE',
      reason: 'an argument or environment value holds a NUL byte',
    });
  });

  it('on timeout kills the whole group at once, grandchildren included', async () => {
    const pidFile = `${dir.path}/timeout.pid`;
    const started = Date.now();
    const outcome = await runCommand(['sh', '-c', `trap "" TERM; sleep 30 & echo $! > ${pidFile}; wait`], { env: PATH_ONLY, timeoutMs: 300 });
    expect(outcome).toEqual({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    await waitFor(() => (isRunning(grandchild) ? undefined : true), `pid ${grandchild} to end`, 2000);
  });

  it('on abort answers cancelled and kills the group; an aborted signal starts nothing', async () => {
    const controller = new AbortController();
    const pidFile = `${dir.path}/abort.pid`;
    const running = runCommand(['sh', '-c', `echo $$ > ${pidFile}; exec sleep 30`], { env: PATH_ONLY, timeoutMs: 30_000, signal: controller.signal });
    // Aborted once the command runs, not before it starts.
    const pid = await waitFor(() => readFile(pidFile, 'utf8').then((text) => (text.endsWith('\n') ? Number(text) : undefined), () => undefined), 'the command to start');
    controller.abort();
    expect(await running).toEqual({ kind: 'cancelled' });
    await waitFor(() => (isRunning(pid) ? undefined : true), `pid ${pid} to end`, 2000);
    expect(await runCommand(['sleep', '30'], { env: PATH_ONLY, timeoutMs: 30_000, signal: AbortSignal.abort() })).toEqual({ kind: 'cancelled' });
  });

  it('stops what a command left running in its group when it ends', async () => {
    // The grandchild lets go of the pipes, so the command's end does not wait for it.
    const outcome = await runCommand(['sh', '-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], { env: PATH_ONLY, timeoutMs: 5000 });
    expect(outcome).toMatchObject({ kind: 'exited', exitCode: 0 });
    const leftover = Number(outcome.kind === 'exited' ? outcome.stdout.trim() : 0);
    expect(leftover).toBeGreaterThan(0);
    await waitFor(() => (isRunning(leftover) ? undefined : true), `pid ${leftover} to end`, 2000);
  });
});
