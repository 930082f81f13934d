import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../src/host/daemon.js';
import { readToken } from '../../../src/host/http/index.js';
import { noConfirmationChannel } from '../../../src/host/router/index.js';
import { FAKE_SERVER, readPids } from '../../fakes/hub-fixtures.js';
import { startScriptedLlmServer, type RecordedChatRequest, type ScriptedLlmServer, type ScriptedReplySpec } from '../../fakes/scripted-llm-server.js';
import { ONLY_TOOL_FILES } from '../../helpers/config-snippets.js';
import { resultText } from '../../helpers/mcp-stdio.js';
import { childProcesses, openDescriptors } from '../../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * A third-party stdio MCP server killed (SIGKILL) while calls from every way
 * in wait on it: two text turns (the HTTP API's and a second conversation),
 * an editor on /mcp and a direct routed call. The real daemon, the real hub,
 * real server processes (test/fakes/fake-server.mjs); the supervisor's
 * default restart policy (first restart after 500 ms).
 */

let home: TempDir;
let llm: ScriptedLlmServer;
let daemon: Daemon;
let token: string;
let callLog: string;
let pidFile: string;

// The model asks for the slow tool, then answers whatever the tool said.
const callSlowThenAnswer = (request: RecordedChatRequest): ScriptedReplySpec => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: `The tool said: ${String(last.content)}` };
  return { toolCalls: [{ name: 'flaky_slow', arguments: '{"ms": 60000}' }] };
};

beforeAll(async () => {
  home = await makeTempDir('da-dies-under-load-');
  llm = await startScriptedLlmServer();
  llm.enqueue(...Array.from({ length: 20 }, () => callSlowThenAnswer));
  callLog = join(home.path, 'flaky-calls');
  pidFile = join(home.path, 'flaky-pids');
  const server = (name: string, env: Record<string, string>) =>
    `[mcp.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FAKE_SERVER)}]\n` +
    `env = { ${Object.entries(env).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(', ')} }\n` +
    // Read risk: allowed without a confirmation, and cancellable.
    'risk = { slow = "read", echo = "read", pid = "read" }\ntimeout = 120\n';
  await home.write(
    'config/config.toml',
    `llm = "${llm.url}"\n[voice]\nenabled = false\n${ONLY_TOOL_FILES}` + server('flaky', { FAKE_CALL_LOG: callLog, FAKE_PID_FILE: pidFile }) + server('steady', {}),
  );
  const env = { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run') };
  daemon = await startDaemon({ configDir: join(home.path, 'config'), env, port: 0 });
  token = readToken(daemon.tokenFile)!;
});

afterAll(async () => {
  await daemon?.close();
  await llm?.close();
  await home?.remove();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const serverState = (name: string) => daemon.host.hub.servers().find((s) => s.name === name)!;

async function editor(): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), { requestInit: { headers: auth() } });
  const client = new Client({ name: 'editor', version: '1' });
  await client.connect(transport);
  return client;
}

function routedCall(name: string, args: Record<string, unknown>) {
  const { router } = daemon.host;
  return router.call(router.newTurn('text', noConfirmationChannel('a test')), { name, arguments: args });
}

async function postTurn(text: string): Promise<{ status: string; reply: string; toolCalls: { status: string }[] }> {
  const response = await fetch(`${daemon.url}/turns`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  return (await response.json()) as never;
}

const callsArrived = async () => (await readFile(callLog, 'utf8').catch(() => '')).split('\n').filter((line) => line.endsWith(' slow')).length;

describe('a third-party MCP server killed during calls under load', () => {
  it('fails each call in flight at once, naming the server, audits each once, and is back within 3 s', async () => {
    const client = await editor();
    // Warm up every path once, so what is measured after is steady state.
    expect(resultText(await client.callTool({ name: 'flaky_echo', arguments: { text: 'warm' } }))).toBe('echo: warm');
    expect((await routedCall('steady_echo', { text: 'warm' })).text).toBe('echo: warm');
    const [firstPid] = await readPids(pidFile);
    const childrenBefore = childProcesses();
    const descriptorsBefore = openDescriptors();
    expect(childrenBefore.map((c) => c.pid)).toContain(firstPid);

    // Four calls from four ways in, all waiting on the flaky server.
    const before = await callsArrived();
    const httpTurn = postTurn('run the slow tool');
    const secondConversation = daemon.host.newConversation().turn('run the slow tool too', { entry: 'text', confirmation: noConfirmationChannel('a test') });
    const mcpCall = client.callTool({ name: 'flaky_slow', arguments: { ms: 60_000 } }, undefined, { timeout: 30_000 });
    const routed = routedCall('flaky_slow', { ms: 60_000 });
    await waitFor(async () => ((await callsArrived()) === before + 4 ? true : undefined), 'four slow calls at the server', 10_000);

    const killedAt = Date.now();
    process.kill(firstPid!, 'SIGKILL');
    const ended = await Promise.all([httpTurn, secondConversation, mcpCall, routed].map((p) => p.then((value) => ({ value, atMs: Date.now() }))));
    // Bounded: each ended about when the server did, not at a timeout.
    for (const { atMs } of ended) expect(atMs - killedAt).toBeLessThan(2000);

    const [turnBody, turnOutcome, mcpResult, routedResult] = ended.map((e) => e.value) as [
      Awaited<typeof httpTurn>,
      Awaited<typeof secondConversation>,
      Awaited<typeof mcpCall>,
      Awaited<typeof routed>,
    ];
    const named = /server flaky .*SIGKILL/;
    expect(turnBody.toolCalls).toEqual([expect.objectContaining({ status: 'error' })]);
    expect(turnBody.reply).toMatch(named);
    expect(turnOutcome.toolCalls).toEqual([expect.objectContaining({ status: 'error' })]);
    expect(turnOutcome.reply).toMatch(named);
    expect(mcpResult.isError).toBe(true);
    expect(resultText(mcpResult)).toMatch(named);
    expect(routedResult).toMatchObject({ isError: true, status: 'error' });
    expect(routedResult.text).toMatch(named);

    // The other server, and the daemon, never stopped working.
    expect(serverState('flaky').state).toBe('restarting');
    expect((await routedCall('steady_echo', { text: 'meanwhile' })).text).toBe('echo: meanwhile');
    expect(resultText(await client.callTool({ name: 'steady_echo', arguments: { text: 'editor too' } }))).toBe('echo: editor too');
    expect((await fetch(`${daemon.url}/health`)).ok).toBe(true);

    // Back by the supervisor's policy: the next call works within 3 s of the kill (it could start again at once).
    await waitFor(() => (serverState('flaky').state === 'ready' ? true : undefined), 'the restart', 3000);
    expect(resultText(await client.callTool({ name: 'flaky_echo', arguments: { text: 'back' } }))).toBe('echo: back');
    const backAfterMs = Date.now() - killedAt;
    expect(backAfterMs).toBeLessThan(3000);
    console.info(`flaky killed under 4 calls: calls failed after ${ended.map((e) => e.atMs - killedAt).join('/')} ms, next call answered ${backAfterMs} ms after the kill`);

    // Each failed call audited exactly once.
    const audit = (await (await fetch(`${daemon.url}/audit?limit=50`, { headers: auth() })).json()) as { records: { tool: string; status: string; entry: string; turnId: string; detail?: string }[] };
    const failedSlow = audit.records.filter((r) => r.tool === 'flaky_slow');
    expect(failedSlow.map((r) => r.entry).sort()).toEqual(['http', 'mcp', 'text', 'text']);
    expect(failedSlow.every((r) => r.status === 'error' && named.test(r.detail ?? ''))).toBe(true);
    expect(new Set(failedSlow.map((r) => r.turnId)).size).toBe(4);

    // Nothing left behind: the dead server reaped (not even a zombie), its pipes closed.
    const [, secondPid] = await readPids(pidFile);
    expect(childProcesses().map((c) => c.pid)).not.toContain(firstPid);
    expect(childProcesses().map((c) => c.pid)).toEqual(childrenBefore.map((c) => (c.pid === firstPid ? secondPid : c.pid)).sort((a, b) => a! - b!));
    expect(openDescriptors().pipe).toBe(descriptorsBefore.pipe);
    await client.close();
  });
});
