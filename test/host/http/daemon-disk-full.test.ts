import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssistantEvent } from '../../../src/events/index.js';
import { startDaemon, type Daemon } from '../../../src/host/daemon.js';
import { readToken, type StateBody } from '../../../src/host/http/index.js';
import { noConfirmationChannel } from '../../../src/host/router/index.js';
import { HashedEmbedder, MemoryStore } from '../../../src/memory/index.js';
import { startScriptedLlmServer, type RecordedChatRequest, type ScriptedLlmServer, type ScriptedReplySpec } from '../../fakes/scripted-llm-server.js';
import { resultText } from '../../helpers/mcp-stdio.js';
import { mountSmallDisk, openDescriptorsOf } from '../../helpers/small-disk.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * The daemon with its data folder (memory.sqlite, memory.index,
 * state.sqlite with the audit) on a real 16 MiB tmpfs, filled to ENOSPC
 * and freed: the real hub, the real memory server and tools server over
 * stdio, the scripted LLM, an editor on /mcp.
 */

const attempt = mountSmallDisk(16 * 1024 * 1024, 'da-daemon-disk-');
if (!attempt.ok) console.warn(`daemon disk-full test skipped: ${attempt.reason}`);
const disk = attempt.ok ? attempt.disk : undefined;

let home: TempDir;
let llm: ScriptedLlmServer;
let daemon: Daemon | undefined;
let token: string;
let env: NodeJS.ProcessEnv;
const dataDir = disk ? join(disk.path, 'data') : '';
const configDir = () => join(home.path, 'config');
const marks = () => join(home.path, 'marks');

beforeAll(async () => {
  if (!disk) return;
  home = await makeTempDir('da-daemon-disk-');
  llm = await startScriptedLlmServer();
  await home.write('config/config.toml', `llm = "${llm.url}"\n[voice]\nenabled = false\n[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n`);
  // A tool whose every run leaves a file outside the full disk: proof of whether it ran.
  await home.write('config/tools/mark.toml', `description = "Leaves a mark"\ncommand = ["touch", "${marks()}/{label}"]\n[params.label]\n`);
  await home.write('marks/.keep', '');
  env = { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: dataDir, XDG_RUNTIME_DIR: join(home.path, 'run') };
  daemon = await startDaemon({ configDir: configDir(), env, port: 0 });
  token = readToken(daemon.tokenFile)!;
}, 60_000);

afterAll(async () => {
  disk?.free();
  await daemon?.close();
  await llm?.close();
  await home?.remove();
  disk?.unmount();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const running = () => daemon!;

async function editor(): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${running().url}/mcp`), { requestInit: { headers: auth() } });
  const client = new Client({ name: 'editor', version: '1' });
  await client.connect(transport);
  return client;
}

function routedCall(name: string, args: Record<string, unknown>) {
  const { router } = running().host;
  return router.call(router.newTurn('text', noConfirmationChannel('a test')), { name, arguments: args });
}

async function state(): Promise<StateBody> {
  return (await (await fetch(`${running().url}/state`, { headers: auth() })).json()) as StateBody;
}

async function postTurn(text: string): Promise<{ status: string; reply: string; toolCalls: { status: string }[] }> {
  const response = await fetch(`${running().url}/turns`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  return (await response.json()) as never;
}

// The model asks for the mark tool, then says what the tool answered.
const markThenAnswer = (label: string) => (request: RecordedChatRequest): ScriptedReplySpec => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: `The tool said: ${String(last.content)}` };
  return { toolCalls: [{ name: 'mark', arguments: JSON.stringify({ label }) }] };
};

const memoryPid = () => running().host.hub.servers().find((s) => s.name === 'memory')?.pid;
const errorCode = (text: string) => (JSON.parse(text) as { error: { code: string; message: string } }).error;

describe.skipIf(!disk)('the daemon when the data folder\'s disk is full', () => {
  it('refuses tool calls it cannot audit (they do not run), keeps text, /mcp and every memory, says so in /state, and works again at once when freed', async () => {
    const client = await editor();
    const events: AssistantEvent[] = [];
    const unsubscribe = running().host.bus.subscribe((event) => events.push(event));
    // Acknowledged before the disk fills: two saves through the router, one from the editor.
    expect((await routedCall('mark', { label: 'before' })).status).toBe('ok');
    expect(existsSync(join(marks(), 'before'))).toBe(true);
    const remembered = ['The spare key is under the blue pot', 'My train leaves at 7:42', 'The wifi router is in the hall cupboard'];
    for (const text of remembered.slice(0, 2)) expect((await routedCall('memory_save', { text, kind: 'fact' })).status).toBe('ok');
    expect((await client.callTool({ name: 'memory_save', arguments: { text: remembered[2], kind: 'fact' } })).isError).toBeFalsy();
    expect((await state()).storage).toEqual({ dataDir, freeBytes: expect.any(Number) });
    const memoryServer = memoryPid();
    expect(memoryServer).toBeGreaterThan(0);
    // Files and pipes: what a failed write or a refused call could leave open (sockets come and go with keep-alive).
    const held = (pid?: number) => {
      const { files, pipes } = openDescriptorsOf(pid);
      return { files, pipes };
    };
    const descriptors = { daemon: held(), memory: held(memoryServer) };
    expect(descriptors.memory.files).toContain(join(dataDir, 'memory.sqlite'));

    disk!.fill();

    // /state says what is missing, in words.
    const full = await state();
    expect(full.storage?.freeBytes).toBeLessThan(1024 * 1024);
    expect(full.storage?.missing).toMatch(/^room on the disk: the disk holding .* is full \(\d+ KiB free\), so memories cannot be saved and tool calls cannot be audited/);
    expect(full.storage?.missing).toContain(dataDir);

    // A tool call that cannot be audited does not run: refused before it starts, naming the file and the disk.
    const refused = await routedCall('mark', { label: 'while-full' });
    expect(refused).toMatchObject({ status: 'refused', isError: true });
    const refusal = errorCode(refused.text);
    expect(refusal.code).toBe('AUDIT_UNWRITABLE');
    expect(refusal.message).toContain(`the state database at ${join(dataDir, 'state.sqlite')} cannot be written: no space left on device`);
    expect(refusal.message).toContain('free space on that disk and tool calls run again at once');
    expect(existsSync(join(marks(), 'while-full'))).toBe(false);
    expect(events).toContainEqual(expect.objectContaining({ type: 'error', code: 'AUDIT_UNWRITABLE', recoverable: true }));

    // The same from the editor, for a memory save: not run, so not saved.
    const fromEditor = await client.callTool({ name: 'memory_save', arguments: { text: 'Saved while the disk was full', kind: 'note' } });
    expect(fromEditor.isError).toBe(true);
    expect(errorCode(resultText(fromEditor)).code).toBe('AUDIT_UNWRITABLE');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('memory_save');

    // Text turns go on: a plain answer, and a turn whose tool call is refused reads the refusal.
    llm.enqueue({ text: 'Under the blue pot.' });
    expect(await postTurn('where is the spare key?')).toMatchObject({ status: 'ok', reply: 'Under the blue pot.' });
    // The memories saved before are recalled into the turn (a read: the disk is not needed).
    expect(JSON.stringify(llm.requests.at(-1)?.messages)).toContain('The spare key is under the blue pot');
    llm.enqueue(markThenAnswer('turn-while-full'), markThenAnswer('turn-while-full'));
    const toolTurn = await postTurn('leave a mark');
    expect(toolTurn).toMatchObject({ status: 'ok', toolCalls: [{ status: 'refused' }] });
    expect(toolTurn.reply).toContain('AUDIT_UNWRITABLE');
    expect(existsSync(join(marks(), 'turn-while-full'))).toBe(false);

    // Nothing died or leaked.
    expect((await fetch(`${running().url}/health`)).ok).toBe(true);
    expect(memoryPid()).toBe(memoryServer);
    expect(held()).toEqual(descriptors.daemon);
    expect(held(memoryServer)).toEqual(descriptors.memory);

    // Freed: the next call works, with no restart and no backoff.
    disk!.free();
    const freedAt = Date.now();
    const after = await waitFor(async () => {
      const result = await routedCall('mark', { label: 'after' });
      return result.status === 'ok' ? result : undefined;
    }, 'a tool call to run again', 3000);
    const backMs = Date.now() - freedAt;
    expect(after.status).toBe('ok');
    expect(existsSync(join(marks(), 'after'))).toBe(true);
    expect((await state()).storage?.missing).toBeUndefined();
    const savedAfter = await client.callTool({ name: 'memory_save', arguments: { text: 'The plumber comes on Tuesday', kind: 'fact' } });
    expect(savedAfter.isError).toBeFalsy();
    console.info(`disk freed: the next tool call ran after ${backMs} ms`);

    // The audit: every call that ran, with its outcome; none left running, none for the refused calls.
    const audit = (await (await fetch(`${running().url}/audit?limit=50`, { headers: auth() })).json()) as { records: { tool: string; status: string; argsSummary: string }[] };
    const marksAudited = audit.records.filter((r) => r.tool === 'mark');
    expect(marksAudited.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(audit.records.filter((r) => r.tool === 'memory_save').map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(audit.records.some((r) => r.status === 'running')).toBe(false);
    expect(memoryPid()).toBe(memoryServer);
    unsubscribe();
    await client.close();

    // A restart finds every memory acknowledged, and none that was refused.
    await running().close();
    daemon = undefined;
    daemon = await startDaemon({ configDir: configDir(), env, port: 0 });
    const again = await editor();
    const found = resultText(await again.callTool({ name: 'memory_list', arguments: { limit: 20 } }));
    for (const text of [...remembered, 'The plumber comes on Tuesday']) expect(found).toContain(text);
    expect(found).not.toContain('Saved while the disk was full');
    expect(found.match(/^#\d+ /gm)).toHaveLength(4);
    await again.close();
    await running().close();
    daemon = undefined;

    // The index on disk loads as it is: no rebuild, no mismatch.
    const store = await MemoryStore.open({ dataDir, embedder: new HashedEmbedder(), log: { write: () => true } });
    expect(store.health()).toMatchObject({ ok: true, records: 4, verified: 4, notes: [] });
    store.close({ snapshot: false });
  });

  it('a memory save the audit can record but the disk cannot hold: MEMORY_DISK_FULL reaches the model and the audit, and the next save works once freed', async () => {
    daemon ??= await startDaemon({ configDir: configDir(), env, port: 0 });
    token = readToken(running().tokenFile)!;
    for (const label of ['one', 'two', 'three']) expect((await routedCall('mark', { label })).status).toBe('ok');
    // The audit's WAL is copied into the database and starts over from its first page: its next writes reuse space the
    // disk already gave it, as they do on a desktop after any checkpoint. The memory database's WAL has no such room.
    const stateDb = new Database(join(dataDir, 'state.sqlite'));
    expect(stateDb.pragma('wal_checkpoint(RESTART)')).toEqual([{ busy: 0, log: expect.any(Number), checkpointed: expect.any(Number) }]);
    stateDb.close();
    const memoryServer = memoryPid();

    disk!.fill();
    const refused = await routedCall('memory_save', { text: 'The boiler was serviced in May', kind: 'fact' });
    expect(refused).toMatchObject({ status: 'error', isError: true });
    expect(refused.text).toContain(`MEMORY_DISK_FULL: the memory database at ${join(dataDir, 'memory.sqlite')} cannot be written: no space left on device`);
    expect(refused.text).toContain('the memories saved before are kept');
    const audited = (await (await fetch(`${running().url}/audit?limit=1`, { headers: auth() })).json()) as { records: { tool: string; status: string; detail?: string }[] };
    expect(audited.records[0]).toMatchObject({ tool: 'memory_save', status: 'error', detail: expect.stringContaining('MEMORY_DISK_FULL') });
    expect(memoryPid()).toBe(memoryServer);

    disk!.free();
    const freedAt = Date.now();
    const saved = await routedCall('memory_save', { text: 'The boiler was serviced in May', kind: 'fact' });
    expect(saved.status).toBe('ok');
    console.info(`disk freed: the next memory save took ${Date.now() - freedAt} ms`);
    expect((await routedCall('memory_search', { query: 'boiler serviced', k: 1 })).text).toContain('The boiler was serviced in May');
  });
});
