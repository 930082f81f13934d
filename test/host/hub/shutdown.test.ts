import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { McpHub } from '../../../src/host/hub/index.js';
import { fakeSpec, hangSpec, readPids, recordingBus, statesOf } from '../../fakes/hub-fixtures.js';
import { isRunning } from '../../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

let dir: TempDir;
let hub: McpHub | undefined;

beforeEach(async () => {
  dir = await makeTempDir('da-hub-stop-');
});

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await dir.remove();
});

describe('close()', () => {
  it('stops a well-behaved server by closing its stdin, and what it started', async () => {
    const pids = `${dir.path}/pids`;
    const children = `${dir.path}/children`;
    const { bus, events } = recordingBus();
    hub = new McpHub([fakeSpec('polite', { FAKE_PID_FILE: pids, FAKE_GRANDCHILD_PID_FILE: children })], {
      bus,
      stop: { stdinGraceMs: 5000, termGraceMs: 5000 },
    });
    await hub.start();
    const [server] = await readPids(pids);
    const [child] = await readPids(children);
    expect(isRunning(server!) && isRunning(child!)).toBe(true);

    const t0 = Date.now();
    await hub.close();
    // Well under the stdin grace: it left on its own when stdin closed.
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(isRunning(server!)).toBe(false);
    expect(isRunning(child!)).toBe(false);
    expect(statesOf(events, 'polite')).toEqual(['starting', 'ready: 6 tools', 'stopped']);
    expect(hub.servers()[0]).toMatchObject({ state: 'stopped' });
    expect(hub.servers()[0]!.pid).toBeUndefined();
  });

  it('goes on to SIGTERM and then SIGKILL for a server that ignores both stdin and SIGTERM', async () => {
    const pids = `${dir.path}/pids`;
    const children = `${dir.path}/children`;
    hub = new McpHub(
      [fakeSpec('stubborn', { FAKE_PID_FILE: pids, FAKE_GRANDCHILD_PID_FILE: children, FAKE_IGNORE_STDIN_CLOSE: '1', FAKE_IGNORE_SIGTERM: '1' })],
      { stop: { stdinGraceMs: 300, termGraceMs: 300 } },
    );
    await hub.start();
    const [server] = await readPids(pids);
    const [child] = await readPids(children);

    const t0 = Date.now();
    await hub.close();
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(600 - 20);
    expect(took).toBeLessThan(3000);
    expect(isRunning(server!)).toBe(false);
    expect(isRunning(child!)).toBe(false);
    // It was sent SIGTERM (and said so) before SIGKILL.
    expect(hub.servers()[0]!.stderrTail.some((line) => line.endsWith('ignoring SIGTERM'))).toBe(true);
  });

  it('stops every server, in parallel', async () => {
    const pids = `${dir.path}/pids`;
    const stubborn = { FAKE_PID_FILE: pids, FAKE_IGNORE_STDIN_CLOSE: '1', FAKE_IGNORE_SIGTERM: '1' };
    hub = new McpHub([fakeSpec('a', stubborn), fakeSpec('b', stubborn), fakeSpec('c', stubborn)], { stop: { stdinGraceMs: 500, termGraceMs: 500 } });
    await hub.start();
    const t0 = Date.now();
    await hub.close();
    expect(Date.now() - t0).toBeLessThan(2500); // one server's 1000 ms, not three's 3000
    for (const pid of await readPids(pids)) expect(isRunning(pid)).toBe(false);
  });

  it('restarts nothing after close, and refuses calls', async () => {
    const pids = `${dir.path}/pids`;
    hub = new McpHub([fakeSpec('fake', { FAKE_PID_FILE: pids })], {
      restart: { initialDelayMs: 300, maxDelayMs: 300, stableAfterMs: 60_000, maxConsecutiveFailures: 5 },
    });
    await hub.start();
    // Fails by design (the server dies); the restarting state below is what is tested.
    await hub.callTool('crash', {}).catch(() => undefined);
    await waitFor(() => (hub!.servers()[0]!.state === 'restarting' ? true : undefined), 'the restarting state');
    await hub.close();
    // Proving nothing happens: no event to wait on; twice the 300 ms restart delay a forgotten timer would have fired at.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await readPids(pids)).toHaveLength(1);
    expect(hub.servers()[0]!.state).toBe('stopped');
    const error = await hub.callTool('echo', {}).catch((e: unknown) => e);
    expect(isAppError(error, 'TOOL_UNAVAILABLE')).toBe(true);
    await expect(hub.start()).rejects.toMatchObject({ code: 'HUB_CLOSED' });
  });

  it('stops a server that is still starting, and start() resolves', async () => {
    const pids = `${dir.path}/pids`;
    hub = new McpHub([hangSpec('hang', { FAKE_PID_FILE: pids })], { startTimeoutMs: 20_000, stop: { stdinGraceMs: 200, termGraceMs: 200 } });
    const starting = hub.start();
    const [pid] = await waitFor(() => readPids(pids).then((p) => (p.length > 0 ? p : undefined)), 'the server process');
    await hub.close();
    await starting;
    expect(isRunning(pid!)).toBe(false);
    expect(hub.servers()[0]!.state).toBe('stopped');
  });
});
