import { getEventListeners } from 'node:events';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { McpHub, TOOL_NAME_PATTERN, type McpHubOptions, type ServerSpec } from '../../../src/host/hub/index.js';
import { fakeSpec, recordingBus, recordingLog } from '../../fakes/hub-fixtures.js';
import { resultText } from '../../helpers/mcp-stdio.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

let dir: TempDir;
let hub: McpHub | undefined;
let cancelLog: string;

beforeEach(async () => {
  dir = await makeTempDir('da-hub-calls-');
  cancelLog = `${dir.path}/cancel.log`;
});

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await dir.remove();
});

async function started(specs: ServerSpec[], options: McpHubOptions = {}): Promise<McpHub> {
  hub = new McpHub(specs, { stop: { stdinGraceMs: 300, termGraceMs: 300 }, ...options });
  await hub.start();
  return hub;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isAppError(error) ? error.code : `not an AppError: ${String(error)}`;
  }
  return 'resolved';
}

const cancelLines = () => readFile(cancelLog, 'utf8').then((text) => text.split('\n').filter(Boolean), () => [] as string[]);

describe('calling tools', () => {
  it('rejects an unknown name with TOOL_UNKNOWN', async () => {
    const hub = await started([fakeSpec('fake')]);
    expect(await codeOf(hub.callTool('nope', {}))).toBe('TOOL_UNKNOWN');
  });

  it('routes an exposed name to its own server when two servers share a tool name', async () => {
    const hub = await started([fakeSpec('alpha'), fakeSpec('beta', { FAKE_TOOLS: 'files.read' })]);
    const names = hub.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['alpha_echo', 'beta_echo', 'alpha_pid', 'beta_pid', 'files_read']));
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    const pidOf = (server: string) => String(hub.servers().find((s) => s.name === server)!.pid);
    expect(resultText(await hub.callTool('alpha_pid', {}))).toBe(pidOf('alpha'));
    expect(resultText(await hub.callTool('beta_pid', {}))).toBe(pidOf('beta'));
    expect(resultText(await hub.callTool('files_read', {}))).toBe('files.read');
  });

  it('follows tools/list pagination and list_changed', async () => {
    const { bus, events } = recordingBus();
    const hub = await started([fakeSpec('fake', { FAKE_PAGE_SIZE: '2', FAKE_TOOLS: 'x1,x2,x3' })], { bus });
    expect(hub.tools().map((t) => t.serverToolName)).toEqual(['add-tool', 'crash', 'echo', 'pid', 'slow', 'stderr', 'x1', 'x2', 'x3']);
    let changes = 0;
    hub.onToolsChanged(() => {
      changes += 1;
    });
    await hub.callTool('add-tool', { name: 'fresh.tool' });
    await waitFor(() => hub.tools().find((t) => t.name === 'fresh_tool'), 'the added tool');
    expect(changes).toBe(1);
    expect(events.filter((e) => e.type === 'tools.changed').at(-1)).toMatchObject({ count: 10 });
    expect(resultText(await hub.callTool('fresh_tool', {}))).toBe('fresh.tool');
  });

  it('passes results through, even from a tool whose outputSchema is not valid', async () => {
    // The SDK's Client.listTools compiles every outputSchema and throws on a bad one;
    // Client.callTool rejects a result without structuredContent. Neither is the hub's call.
    const hub = await started([fakeSpec('fake', { FAKE_BAD_OUTPUT_SCHEMA: '1' })]);
    expect(hub.servers()[0]!.state).toBe('ready');
    expect(hub.tools().find((t) => t.name === 'odd')?.definition.outputSchema).toBeDefined();
    expect(resultText(await hub.callTool('odd', {}))).toBe('odd');
  });

  it('times out a call, tells the server, and stays usable', async () => {
    const hub = await started([fakeSpec('fake', { FAKE_CANCEL_LOG: cancelLog })]);
    const t0 = Date.now();
    expect(await codeOf(hub.callTool('slow', { ms: 3000 }, { timeoutMs: 200 }))).toBe('TOOL_TIMEOUT');
    expect(Date.now() - t0).toBeLessThan(1500);
    const [line] = await waitFor(() => cancelLines().then((l) => (l.length > 0 ? l : undefined)), 'the cancellation at the server');
    expect(line).toMatch(/^cancelled \d+ .*timed out after 200 ms/);
    expect(resultText(await hub.callTool('echo', { text: 'after' }))).toBe('echo: after');
  });

  it('uses the server\'s call timeout by default', async () => {
    const hub = await started([fakeSpec('fake', { FAKE_CANCEL_LOG: cancelLog }, { callTimeoutMs: 200 })]);
    const error = await hub.callTool('slow', { ms: 3000 }).catch((e: unknown) => e);
    expect(isAppError(error, 'TOOL_TIMEOUT')).toBe(true);
    expect((error as Error).message).toBe('tool slow on server fake timed out after 200 ms');
    await waitFor(() => cancelLines().then((l) => (l.length > 0 ? l : undefined)), 'the cancellation at the server');
  });

  it('cancels a call when its signal aborts, and tells the server', async () => {
    const callLog = `${dir.path}/calls.log`;
    const hub = await started([fakeSpec('fake', { FAKE_CANCEL_LOG: cancelLog, FAKE_CALL_LOG: callLog })]);
    const controller = new AbortController();
    const pending = codeOf(hub.callTool('slow', { ms: 3000 }, { signal: controller.signal }));
    // Aborted once the server is running the call.
    await waitFor(() => readFile(callLog, 'utf8').then((text) => (text.includes(' slow') ? true : undefined), () => undefined), 'the call at the server');
    controller.abort(new Error('user barged in'));
    expect(await pending).toBe('TOOL_CANCELLED');
    const [line] = await waitFor(() => cancelLines().then((l) => (l.length > 0 ? l : undefined)), 'the cancellation at the server');
    expect(line).toMatch(/^cancelled \d+ .*user barged in/);
  });

  it('does not send a call whose signal is already aborted', async () => {
    const callLog = `${dir.path}/calls.log`;
    const hub = await started([fakeSpec('fake', { FAKE_CANCEL_LOG: cancelLog, FAKE_CALL_LOG: callLog })]);
    expect(await codeOf(hub.callTool('slow', { ms: 100 }, { signal: AbortSignal.abort() }))).toBe('TOOL_CANCELLED');
    // The server reads its stdin in order: once a later call is answered, an earlier one sent would be in its log.
    expect(resultText(await hub.callTool('echo', { text: 'next' }))).toBe('echo: next');
    const calls = (await readFile(callLog, 'utf8')).trim().split('\n');
    expect(calls.map((line) => line.split(' ')[2])).toEqual(['echo']);
    expect(await cancelLines()).toEqual([]);
  });

  it('ignores a late answer to a call it gave up on', async () => {
    const log = recordingLog();
    const hub = await started([fakeSpec('fake', { FAKE_CANCEL_LOG: cancelLog })], { log: log.sink });
    expect(await codeOf(hub.callTool('slow', { ms: 400, late: true }, { timeoutMs: 100 }))).toBe('TOOL_TIMEOUT');
    await waitFor(() => cancelLines().then((l) => (l.some((x) => x.startsWith('late ')) ? l : undefined)), 'the late answer');
    // The next call gets its own answer, not the late one.
    expect(resultText(await hub.callTool('echo', { text: 'mine' }))).toBe('echo: mine');
    await waitFor(() => log.lines.find((l) => l.event === 'hub.protocol_error' && /unknown message ID/.test(String(l.error))), 'the dropped answer in the log');
    expect(hub.servers()[0]!.state).toBe('ready');
  });

  it('leaves no listener on a signal shared by 50 calls', async () => {
    const hub = await started([fakeSpec('fake')]);
    const turn = new AbortController();
    for (let i = 0; i < 50; i += 1) {
      expect(resultText(await hub.callTool('echo', { text: String(i) }, { signal: turn.signal }))).toBe(`echo: ${i}`);
    }
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    // Also after calls that ended by timeout, and while calls run at the same time.
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => hub.callTool(i % 2 ? 'echo' : 'slow', { ms: 500 }, { signal: turn.signal, timeoutMs: 100 }).catch(() => 'x')),
    );
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
  });

  it('refuses a timeout that is not a positive number', async () => {
    const hub = await started([fakeSpec('fake')]);
    expect(await codeOf(hub.callTool('echo', {}, { timeoutMs: 0 }))).toBe('TOOL_BAD_TIMEOUT');
    expect(await codeOf(hub.callTool('echo', {}, { timeoutMs: Number.NaN }))).toBe('TOOL_BAD_TIMEOUT');
  });
});
