import { spawnSync } from 'node:child_process';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { META_USER_CONFIRMED_SENSITIVE } from '../../../src/tool-meta/index.js';
import { resultText, type StdioServerHandle } from '../../helpers/mcp-stdio.js';
import { MEMORY_SERVER } from '../../helpers/paths.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { connectMemoryServer, list, memoryFilesExist, memoryFolders, save, savedId, search, structured, type MemoryView } from './memory-fixture.js';

let home: TempDir;
const servers: StdioServerHandle[] = [];

async function start(configToml = ''): Promise<{ server: StdioServerHandle; dataDir: string; configDir: string }> {
  const folders = await memoryFolders(home, configToml);
  const server = await connectMemoryServer(folders);
  servers.push(server);
  return { server, ...folders };
}

beforeEach(async () => {
  home = await makeTempDir('da-memory-server-');
});
afterEach(async () => {
  // Clean-up: a test may have killed its server already.
  for (const server of servers.splice(0)) await server.close().catch(() => undefined);
  await home.remove();
});

describe('memory server over stdio', () => {
  it('lists its four tools with the risk each declares, and confirmation rules for save', async () => {
    const { server } = await start();
    const { tools } = await server.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t._meta]));
    expect(Object.keys(byName).sort()).toEqual(['memory.forget', 'memory.list', 'memory.save', 'memory.search']);
    expect(byName['memory.search']).toMatchObject({ 'desktop-assistant/risk': 'read' });
    expect(byName['memory.list']).toMatchObject({ 'desktop-assistant/risk': 'read' });
    expect(byName['memory.forget']).toMatchObject({ 'desktop-assistant/risk': 'write' });
    expect(byName['memory.save']).toMatchObject({
      'desktop-assistant/risk': 'write',
      'desktop-assistant/sensitiveArgument': 'text',
      'desktop-assistant/allowUnlessSensitive': true,
    });
  });

  it('saves, searches, lists and forgets through a real client, and keeps memories across a restart', async () => {
    const { server, configDir, dataDir } = await start();
    const wifi = await savedId(server, 'The guest wifi network is called Aurora', 'fact');
    const tea = await savedId(server, 'I drink green tea in the afternoon', 'preference');

    const found = await search(server, 'what is the guest wifi called', 2);
    expect(found[0]).toMatchObject({ id: wifi, kind: 'fact', text: 'The guest wifi network is called Aurora' });
    expect(found[0]?.score).toBeGreaterThan(found[1]?.score ?? 1);
    expect(found[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    const text = resultText(await server.client.callTool({ name: 'memory.search', arguments: { query: 'wifi', k: 1 } }));
    expect(text).toMatch(new RegExp(`^#${wifi} \\[fact\\] The guest wifi network is called Aurora \\(score `));

    expect((await list(server)).map((m) => m.id)).toEqual([tea, wifi]);
    const byKind = structured<{ memories: MemoryView[] }>(await server.client.callTool({ name: 'memory.list', arguments: { kind: 'preference' } }));
    expect(byKind.memories.map((m) => m.id)).toEqual([tea]);

    const forgotten = (await server.client.callTool({ name: 'memory.forget', arguments: { id: tea } })) as CallToolResult;
    expect(forgotten.isError).toBeFalsy();
    const again = (await server.client.callTool({ name: 'memory.forget', arguments: { id: tea } })) as CallToolResult;
    expect(again.isError).toBe(true);
    expect(resultText(again)).toContain('MEMORY_NOT_FOUND');

    await server.close();
    const restarted = await connectMemoryServer({ configDir, dataDir });
    servers.push(restarted);
    expect((await list(restarted)).map((m) => m.text)).toEqual(['The guest wifi network is called Aurora']);
    expect((await search(restarted, 'guest wifi name', 1))[0]?.id).toBe(wifi);
  });

  it('refuses a sensitive save without the router’s confirmation, and keeps it, marked, with one', async () => {
    const { server } = await start();
    const text = 'My bank account is IBAN GB82 WEST 1234 5698 7654 32';
    const refused = await save(server, text);
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(/^MEMORY_SENSITIVE_UNCONFIRMED: .*iban/);
    // A model cannot confirm for the user by putting the flag in the arguments.
    const sneaky = (await server.client.callTool({ name: 'memory.save', arguments: { text, kind: 'fact', [META_USER_CONFIRMED_SENSITIVE]: true } })) as CallToolResult;
    expect(sneaky.isError).toBe(true);
    expect(await list(server)).toEqual([]);

    const kept = await save(server, text, 'fact', { [META_USER_CONFIRMED_SENSITIVE]: true });
    expect(kept.isError).toBeFalsy();
    expect(structured<{ memory: MemoryView }>(kept).memory).toMatchObject({ sensitive: true });
  });

  it('answers bad arguments with an error result that names the problem', async () => {
    const { server } = await start();
    const cases: [string, unknown, RegExp][] = [
      ['memory.save', { text: 'x' }, /kind is required/],
      ['memory.save', { text: 'x', kind: 'secret' }, /kind must be one of preference, fact, project, task_summary, note/],
      ['memory.search', { query: '' }, /query must be a non-empty string/],
      ['memory.search', { query: 'a', k: 0 }, /k must be a whole number from 1 to 20/],
      ['memory.forget', { id: 'seven' }, /id must be a whole number/],
      ['memory.list', { limit: 5, colour: 'red' }, /unknown argument colour/],
      ['memory.recall', {}, /no tool named memory.recall/],
    ];
    for (const [name, args, message] of cases) {
      const result = (await server.client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
      expect(result.isError, name).toBe(true);
      expect(resultText(result)).toMatch(message);
    }
  });

  it('lists its tools even when the store cannot be opened, and every call says why', async () => {
    const folders = await memoryFolders(home);
    await home.write('data/memory.sqlite', 'this is not a database');
    const server = await connectMemoryServer(folders);
    servers.push(server);
    expect((await server.client.listTools()).tools).toHaveLength(4);
    const result = (await server.client.callTool({ name: 'memory.list', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^MEMORY_UNAVAILABLE: the memory store could not be opened: .*memory\.sqlite is not a readable SQLite database/);
    expect(server.stderr()).toContain('memory_unavailable');
  });

  it('when memory is disabled, exits saying so and opens or creates no memory file', async () => {
    for (const [toml, env] of [['[memory]\nenabled = false\n', {}], ['', { OWNER_MEMORY_ENABLED: '0' }]] as const) {
      const { configDir, dataDir } = await memoryFolders(home, toml);
      const run = spawnSync(process.execPath, [MEMORY_SERVER, '--config-dir', configDir], {
        env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: dataDir, ...env },
        input: '',
        encoding: 'utf8',
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('memory is turned off');
      expect(memoryFilesExist(dataDir)).toBe(false);
    }
  });

  it('two servers on one data folder share one store: each sees the other’s saves and forgets, ids never collide', async () => {
    const { server: a, configDir, dataDir } = await start();
    const b = await connectMemoryServer({ configDir, dataDir });
    servers.push(b);
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) => savedId(i % 2 === 0 ? a : b, `errand number ${i}: buy item ${i} at shop ${i % 3}`, 'task_summary')),
    );
    expect(new Set(ids).size).toBe(20);
    for (const server of [a, b]) {
      const listed = await list(server);
      expect(listed.map((m) => m.id).sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
    }
    expect((await search(b, 'errand number 4: buy item 4', 1))[0]?.id).toBe(ids[4]);
    expect((await search(a, 'errand number 7: buy item 7', 1))[0]?.id).toBe(ids[7]);
    await a.client.callTool({ name: 'memory.forget', arguments: { id: ids[7] } });
    expect((await list(b)).map((m) => m.id)).not.toContain(ids[7]);
  });
});
