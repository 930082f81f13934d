import { rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { McpHub, type ServerSpec } from '../../../src/host/hub/index.js';
import { fakeSpec, hangSpec, readPids, recordingBus, statesOf } from '../../fakes/hub-fixtures.js';
import { resultText } from '../../helpers/mcp-stdio.js';
import { isRunning } from '../../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

let dir: TempDir;
let hub: McpHub | undefined;

beforeEach(async () => {
  dir = await makeTempDir('da-hub-sup-');
});

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await dir.remove();
});

const fastRestarts = { initialDelayMs: 100, maxDelayMs: 400, stableAfterMs: 60_000, maxConsecutiveFailures: 6 };
const fastStop = { stdinGraceMs: 300, termGraceMs: 300 };

function makeHub(specs: ServerSpec[], extra: Partial<ConstructorParameters<typeof McpHub>[1]> = {}) {
  const { bus, events } = recordingBus();
  hub = new McpHub(specs, { bus, restart: fastRestarts, stop: fastStop, startTimeoutMs: 5000, ...extra });
  return { hub, events };
}

const stateOf = (name: string) => hub!.servers().find((s) => s.name === name)!;

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message: string; retryable?: boolean }> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message, retryable: error.retryable };
    return { message: String(error) };
  }
  throw new Error('expected a rejection');
}

describe('restarting a crashed server', () => {
  it('answers TOOL_UNAVAILABLE while it is down, keeps its tools listed, then works again', async () => {
    const pidFile = `${dir.path}/pids`;
    const { hub, events } = makeHub([fakeSpec('fake', { FAKE_PID_FILE: pidFile })], {
      restart: { ...fastRestarts, initialDelayMs: 400 },
    });
    await hub.start();
    const names = hub.tools().map((t) => t.name);
    let changes = 0;
    hub.onToolsChanged(() => {
      changes += 1;
    });

    const crash = await rejection(hub.callTool('crash', {}));
    expect(crash).toMatchObject({ code: 'TOOL_UNAVAILABLE', retryable: true });

    await waitFor(() => (stateOf('fake').state === 'restarting' ? true : undefined), 'the restarting state');
    const meanwhile = await rejection(hub.callTool('echo', { text: 'x' }));
    expect(meanwhile.code).toBe('TOOL_UNAVAILABLE');
    expect(meanwhile.retryable).toBe(true);
    expect(meanwhile.message).toMatch(/temporarily unavailable/);
    expect(hub.tools().map((t) => t.name)).toEqual(names);
    expect(stateOf('fake').error).toBe('exited with code 1');
    expect(changes).toBe(1); // its tools became unavailable

    await waitFor(() => (stateOf('fake').state === 'ready' ? true : undefined), 'the restart');
    expect(resultText(await hub.callTool('echo', { text: 'back' }))).toBe('echo: back');
    expect(changes).toBe(2); // and available again
    expect(stateOf('fake')).toMatchObject({ restarts: 1, state: 'ready' });
    expect(stateOf('fake').error).toBeUndefined();
    const pids = await readPids(pidFile);
    expect(pids).toHaveLength(2);
    expect(isRunning(pids[0]!)).toBe(false);
    expect(statesOf(events, 'fake')).toEqual([
      'starting',
      'ready: 6 tools',
      'restarting: exited with code 1; restarting in 400 ms',
      'ready: 6 tools',
    ]);
  });

  it('fails a call in flight when the server dies under it', async () => {
    const { hub } = makeHub([fakeSpec('fake', { FAKE_CRASH_AFTER: '1' })]);
    await hub.start();
    expect(resultText(await hub.callTool('echo', { text: 'one' }))).toBe('echo: one');
    expect(await rejection(hub.callTool('echo', { text: 'two' }))).toMatchObject({ code: 'TOOL_UNAVAILABLE' });
    expect(stateOf('fake').stderrTail.join('\n')).toMatch(/crashing on call 2/);
  });

  it('doubles the wait after each consecutive crash, up to the maximum', async () => {
    const { hub, events } = makeHub([fakeSpec('fake', {})]);
    await hub.start();
    for (let crash = 1; crash <= 4; crash += 1) {
      await rejection(hub.callTool('crash', {}));
      await waitFor(() => (stateOf('fake').state === 'ready' && stateOf('fake').restarts === crash ? true : undefined), `restart ${crash}`);
    }
    const waits = statesOf(events, 'fake').filter((s) => s.startsWith('restarting'));
    expect(waits).toEqual([100, 200, 400, 400].map((ms) => `restarting: exited with code 1; restarting in ${ms} ms`));
    // And it did wait: each ready comes at least that long after its restarting.
    const times = events.filter((e) => e.type === 'server.state' && (e.state === 'restarting' || e.state === 'ready')).slice(1);
    for (let i = 0; i < times.length; i += 2) {
      expect(times[i + 1]!.atMs - times[i]!.atMs).toBeGreaterThanOrEqual([100, 200, 400, 400][i / 2]!);
    }
  });

  it('starts the count again for a server that stayed up long enough', async () => {
    const { hub, events } = makeHub([fakeSpec('fake', {})], { restart: { ...fastRestarts, stableAfterMs: 0 } });
    await hub.start();
    for (let crash = 1; crash <= 3; crash += 1) {
      await rejection(hub.callTool('crash', {}));
      await waitFor(() => (stateOf('fake').restarts === crash && stateOf('fake').state === 'ready' ? true : undefined), `restart ${crash}`);
    }
    expect(statesOf(events, 'fake').filter((s) => s.startsWith('restarting'))).toEqual(
      Array(3).fill('restarting: exited with code 1; restarting in 100 ms'),
    );
  });

  it('gives up after the configured number of consecutive failures', async () => {
    const flag = `${dir.path}/refuse`;
    const pidFile = `${dir.path}/pids`;
    const { hub, events } = makeHub([fakeSpec('fake', { FAKE_FAIL_START_FLAG: flag, FAKE_PID_FILE: pidFile })], {
      restart: { ...fastRestarts, maxConsecutiveFailures: 3 },
    });
    await hub.start();
    await writeFile(flag, '');
    await rejection(hub.callTool('crash', {}));
    await waitFor(() => (stateOf('fake').state === 'failed' ? true : undefined), 'the server to be given up');

    const status = stateOf('fake');
    expect(status.error).toMatch(/^exited with code 1 before it was ready; gave up after 3 consecutive failures\nstderr:\n/);
    expect(status.error).toMatch(/refusing to start: flag file present/);
    expect(status.restarts).toBe(2);
    expect(statesOf(events, 'fake').map((s) => s.split(':')[0])).toEqual(['starting', 'ready', 'restarting', 'restarting', 'failed']);
    const call = await rejection(hub.callTool('echo', {}));
    expect(call).toMatchObject({ code: 'TOOL_UNAVAILABLE', retryable: false });
    expect(call.message).toMatch(/is unavailable: it failed \(exited with code 1 before it was ready; gave up/);

    // Given up means given up: no more tries even once it could start again.
    await rm(flag);
    const started = (await readPids(pidFile)).length;
    // Proving nothing happens: no event to wait on; longer than the policy's longest delay (maxDelayMs 400) before a try.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await readPids(pidFile)).toHaveLength(started);
    expect(stateOf('fake').state).toBe('failed');
  });

  it('stops what the crashed server left running', async () => {
    const grandchildren = `${dir.path}/grandchildren`;
    const { hub } = makeHub([fakeSpec('fake', { FAKE_GRANDCHILD_PID_FILE: grandchildren })]);
    await hub.start();
    const [orphan] = await readPids(grandchildren);
    expect(isRunning(orphan!)).toBe(true);
    await rejection(hub.callTool('crash', {}));
    await waitFor(() => (isRunning(orphan!) ? undefined : true), 'the crashed server\'s child to be stopped');
  });
});

describe('stderr', () => {
  it('keeps the last 50 lines', async () => {
    const { hub } = makeHub([fakeSpec('fake', { FAKE_STDERR_LINES: '60' })]);
    await hub.start();
    await waitFor(() => (stateOf('fake').stderrTail.at(-1)?.endsWith('stderr line 60') ? true : undefined), 'the stderr lines');
    const tail = stateOf('fake').stderrTail;
    expect(tail).toHaveLength(50);
    expect(tail[0]).toMatch(/stderr line 11$/);
    await hub.callTool('stderr', { text: 'a line from a call' });
    await waitFor(() => (stateOf('fake').stderrTail.at(-1) === 'a line from a call' ? true : undefined), "the call's line");
    expect(stateOf('fake').stderrTail[0]).toMatch(/stderr line 12$/);
  });

  it('keeps the lines of a crashed run after the restart', async () => {
    const { hub } = makeHub([fakeSpec('fake', { FAKE_STDERR_LINES: '1' })]);
    await hub.start();
    await rejection(hub.callTool('crash', {}));
    await waitFor(() => (stateOf('fake').state === 'ready' && stateOf('fake').restarts === 1 ? true : undefined), 'the restart');
    await waitFor(() => (stateOf('fake').stderrTail.length === 3 ? true : undefined), "the new run's line");
    const [first, crash, second] = stateOf('fake').stderrTail.map((line) => /^fake\[(\d+)\]: (.*)$/.exec(line)!);
    expect([first![2], crash![2], second![2]]).toEqual(['stderr line 1', 'crash tool called, exiting', 'stderr line 1']);
    expect(first![1]).toBe(crash![1]);
    expect(second![1]).not.toBe(first![1]);
  });
});

describe('servers that never become ready', () => {
  it('fails one that never answers initialize, with its stderr, without holding up the others', async () => {
    const pidFile = `${dir.path}/hang-pids`;
    const { hub, events } = makeHub([hangSpec('hang', { FAKE_PID_FILE: pidFile, FAKE_IGNORE_SIGTERM: '1' }), fakeSpec('fine')], {
      startTimeoutMs: 3000,
    });
    const started = Date.now();
    await hub.start();
    expect(Date.now() - started).toBeLessThan(3000 + 2 * fastStop.termGraceMs + 2000);

    const hang = stateOf('hang');
    expect(hang.state).toBe('failed');
    expect(hang.error).toBe(
      'did not initialize within 3000 ms\nstderr:\nhang-server: loading a very large model\nhang-server: still loading (this server never answers)',
    );
    expect(hang.toolCount).toBe(0);
    expect(stateOf('fine').state).toBe('ready');
    // The good one was ready long before the bad one was given up.
    const at = (server: string, state: string) => events.find((e) => e.type === 'server.state' && e.server === server && e.state === state)!.atMs;
    expect(at('hang', 'failed') - at('fine', 'ready')).toBeGreaterThan(1000);
    expect(resultText(await hub.callTool('echo', { text: 'still fine' }))).toBe('echo: still fine');
    // It ignored SIGTERM: SIGKILL stopped it.
    const [pid] = await readPids(pidFile);
    expect(isRunning(pid!)).toBe(false);
  });

  it('fails one whose command does not exist, and one that exits at once', async () => {
    const flag = `${dir.path}/refuse`;
    await writeFile(flag, '');
    const missing: ServerSpec = { ...fakeSpec('missing'), command: `${dir.path}/no-such-server`, args: [] };
    const badCwd: ServerSpec = { ...fakeSpec('badcwd'), cwd: `${dir.path}/no-such-folder` };
    const { hub } = makeHub([missing, badCwd, fakeSpec('quits', { FAKE_FAIL_START_FLAG: flag }), fakeSpec('fine')], { startTimeoutMs: 30_000 });
    const started = Date.now();
    await hub.start();
    // Failed as soon as they failed, not at the start timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(hub.servers().map((s) => [s.name, s.state])).toEqual([
      ['badcwd', 'failed'],
      ['fine', 'ready'],
      ['missing', 'failed'],
      ['quits', 'failed'],
    ]);
    expect(stateOf('missing').error).toBe(`command not found: ${dir.path}/no-such-server`);
    expect(stateOf('badcwd').error).toBe(`working folder not found: ${dir.path}/no-such-folder`);
    expect(stateOf('quits').error).toMatch(/^exited with code 1 before it was ready\nstderr:\nfake\[\d+\]: refusing to start: flag file present$/);
    expect(hub.tools().every((t) => t.server === 'fine')).toBe(true);
  });
});
