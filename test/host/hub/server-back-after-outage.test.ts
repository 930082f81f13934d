import { readFile, rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { McpHub } from '../../../src/host/hub/index.js';
import { fakeSpec, readPids, recordingBus } from '../../fakes/hub-fixtures.js';
import { resultText } from '../../helpers/mcp-stdio.js';
import { childProcesses } from '../../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * A server killed under calls that cannot start again at once (its first
 * restart fails), with the hub's default restart policy: it is back within
 * 3 s of being able to start, and nothing of its failed tries is left.
 */

let dir: TempDir;
let hub: McpHub | undefined;

beforeEach(async () => {
  dir = await makeTempDir('da-hub-outage-');
});

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await dir.remove();
});

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; retryable: boolean }> {
  const error = await promise.then(
    () => new Error('resolved'),
    (e: unknown) => e,
  );
  if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { code: error.code, message: error.message, retryable: error.retryable };
}

describe('a server down for a while after a kill', () => {
  it('is tried again by the default policy and answers within 3 s of being able to start', async () => {
    const flag = `${dir.path}/cannot-start`;
    const pidFile = `${dir.path}/pids`;
    const callLog = `${dir.path}/calls`;
    const { bus, events } = recordingBus();
    hub = new McpHub([fakeSpec('flaky', { FAKE_FAIL_START_FLAG: flag, FAKE_PID_FILE: pidFile, FAKE_CALL_LOG: callLog }), fakeSpec('steady')], { bus });
    await hub.start();
    const state = (name: string) => hub!.servers().find((s) => s.name === name)!.state;

    const calls = [hub.callTool('flaky_slow', { ms: 60_000 }), hub.callTool('flaky_slow', { ms: 60_000 })].map(failure);
    await waitFor(async () => ((await readFile(callLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).length === 2 ? true : undefined), 'both calls at the server');
    await writeFile(flag, '');
    const [firstPid] = await readPids(pidFile);
    process.kill(firstPid!, 'SIGKILL');

    for (const call of await Promise.all(calls)) {
      expect(call).toEqual({ code: 'TOOL_UNAVAILABLE', retryable: true, message: 'server flaky stopped during a call of slow: it was killed by SIGKILL; it is being restarted; try again shortly' });
    }
    // Its first restart fails: it cannot start yet.
    const failedTry = (e: (typeof events)[number]) => e.type === 'server.state' && e.server === 'flaky' && e.state === 'restarting' && /before it was ready/.test(e.detail ?? '');
    await waitFor(() => (events.some(failedTry) ? true : undefined), 'a failed restart');
    expect(resultText(await hub.callTool('steady_echo', { text: 'meanwhile' }))).toBe('echo: meanwhile');
    expect((await failure(hub.callTool('flaky_echo', {}))).message).toMatch(/^server flaky is temporarily unavailable \(restarting\)/);

    await rm(flag);
    const canStartAt = Date.now();
    await waitFor(() => (state('flaky') === 'ready' ? true : undefined), 'the restart', 3000);
    expect(resultText(await hub.callTool('flaky_echo', { text: 'back' }))).toBe('echo: back');
    expect(Date.now() - canStartAt).toBeLessThan(3000);

    // The killed run and the failed try were both reaped: only the two live servers are children.
    const pids = await readPids(pidFile);
    expect(pids).toHaveLength(3);
    const live = hub.servers().map((s) => s.pid);
    expect(childProcesses().map((c) => c.pid).sort()).toEqual([...live].sort());
    expect(live).toContain(pids[2]);
  });

  it('answers within 3 s of being able to start after several failed tries in a row (8 s down)', async () => {
    const flag = `${dir.path}/cannot-start`;
    const pidFile = `${dir.path}/pids`;
    const { bus, events } = recordingBus();
    hub = new McpHub([fakeSpec('flaky', { FAKE_FAIL_START_FLAG: flag, FAKE_PID_FILE: pidFile }), fakeSpec('steady')], { bus });
    await hub.start();
    const state = () => hub!.servers().find((s) => s.name === 'flaky')!.state;
    await writeFile(flag, '');
    const [firstPid] = await readPids(pidFile);
    process.kill(firstPid!, 'SIGKILL');
    const failedTries = () => events.filter((e) => e.type === 'server.state' && e.server === 'flaky' && e.state === 'restarting' && /before it was ready/.test(e.detail ?? '')).length;
    // Down long enough that a doubling backoff would be waiting 8 s or more by now.
    await waitFor(() => (failedTries() >= 4 ? true : undefined), 'four failed tries in a row', 15_000);
    expect(state()).toBe('restarting');

    await rm(flag);
    const canStartAt = Date.now();
    await waitFor(() => (state() === 'ready' ? true : undefined), 'the restart', 3000);
    expect(resultText(await hub.callTool('flaky_echo', { text: 'back' }))).toBe('echo: back');
    expect(Date.now() - canStartAt).toBeLessThan(3000);
    expect(childProcesses().map((c) => c.pid).sort()).toEqual(hub.servers().map((s) => s.pid).sort());
  }, 30_000);
});
