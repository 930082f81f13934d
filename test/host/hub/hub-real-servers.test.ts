import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinToolsServerSpec, McpHub, TOOL_NAME_PATTERN, type ServerSpec } from '../../../src/host/hub/index.js';
import { recordingBus, statesOf } from '../../fakes/hub-fixtures.js';
import { resultText } from '../../helpers/mcp-stdio.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { isRunning } from '../../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

function everythingSpec(): ServerSpec {
  return { name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], trusted: false, builtin: false, callTimeoutMs: 10_000 };
}

let config: TempDir;
let hub: McpHub | undefined;

beforeEach(async () => {
  config = await makeTempDir('da-hub-');
  // `echo` collides with server-everything's own echo tool; `greet` does not.
  await config.write('tools/echo.toml', 'description = "Echo"\ncommand = ["echo", "{text}"]\n[params.text]\n');
  await config.write('tools/greet.toml', 'description = "Greeting"\ncommand = ["echo", "hello"]\n');
});

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await config.remove();
});

describe('the hub with the tools server and server-everything', () => {
  it('starts both in parallel and lists every tool under a unique legal name', async () => {
    const { bus, events } = recordingBus();
    hub = new McpHub([builtinToolsServerSpec(config.path), everythingSpec()], { bus });
    await hub.start();

    // Both were starting before either was ready: neither waited for the other.
    const firstReady = events.findIndex((e) => e.type === 'server.state' && e.state === 'ready');
    const starting = events.flatMap((e, i) => (e.type === 'server.state' && e.state === 'starting' ? [i] : []));
    expect(starting).toHaveLength(2);
    expect(Math.max(...starting)).toBeLessThan(firstReady);

    const servers = hub.servers();
    expect(servers.map((s) => [s.name, s.state, s.trusted, s.builtin])).toEqual([
      ['everything', 'ready', false, false],
      ['tools', 'ready', true, true],
    ]);
    expect(servers[1]!.commandLine).toContain('dist/mcp-servers/tools/main.js --config-dir');

    const tools = hub.tools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(tools.filter((t) => t.server === 'everything').length).toBeGreaterThanOrEqual(10);
    expect(servers[0]!.toolCount).toBe(tools.filter((t) => t.server === 'everything').length);
    expect(names).toEqual(expect.arrayContaining(['tools_echo', 'everything_echo', 'greet', 'get-sum']));
    expect(tools.find((t) => t.name === 'everything_echo')).toMatchObject({ server: 'everything', serverToolName: 'echo' });
    expect(tools.find((t) => t.name === 'tools_echo')?.definition.description).toBe('Echo');
    expect(events.filter((e) => e.type === 'tools.changed').at(-1)).toMatchObject({ count: tools.length });
  });

  it('calls a tool on each server by its exposed name', async () => {
    hub = new McpHub([builtinToolsServerSpec(config.path), everythingSpec()]);
    await hub.start();
    expect(resultText(await hub.callTool('tools_echo', { text: 'from the tools server' }))).toBe('from the tools server');
    expect(resultText(await hub.callTool('everything_echo', { message: 'from everything' }))).toBe('Echo: from everything');
    expect(resultText(await hub.callTool('get-sum', { a: 2, b: 3 }))).toContain('5');
  });

  it('follows list_changed when a tool file is added', async () => {
    const { bus, events } = recordingBus();
    hub = new McpHub([builtinToolsServerSpec(config.path), everythingSpec()], { bus });
    await hub.start();
    let changes = 0;
    hub.onToolsChanged(() => {
      changes += 1;
    });
    const before = hub.tools().length;

    await config.write('tools/later.toml', 'description = "Later"\ncommand = ["echo", "later"]\n');
    await waitFor(() => hub!.tools().find((t) => t.name === 'later'), 'the new tool in the hub');
    expect(hub.tools()).toHaveLength(before + 1);
    expect(changes).toBeGreaterThanOrEqual(1);
    expect(events.filter((e) => e.type === 'tools.changed').at(-1)).toMatchObject({ count: before + 1 });
    expect(resultText(await hub.callTool('later', {}))).toBe('later');
  });

  it('gives the same names after a restart, whatever order the servers are given in', async () => {
    hub = new McpHub([builtinToolsServerSpec(config.path), everythingSpec()]);
    await hub.start();
    const first = hub.tools().map((t) => [t.name, t.server, t.serverToolName]);
    await hub.close();
    hub = new McpHub([everythingSpec(), builtinToolsServerSpec(config.path)]);
    await hub.start();
    expect(hub.tools().map((t) => [t.name, t.server, t.serverToolName])).toEqual(first);
  });

  it('waits for a built-in tool its own declared timeout, not the server default', async () => {
    await config.write('tools/nap.toml', 'description = "Nap"\ncommand = ["sleep", "5"]\ntimeout = 0.3\n');
    // A server default far below the tool's own timeout: the tool's must win.
    hub = new McpHub([{ ...builtinToolsServerSpec(config.path), callTimeoutMs: 50 }]);
    await hub.start();
    const result = await hub.callTool('nap', {});
    expect({ text: resultText(result), isError: result.isError }).toEqual({ text: 'error: timed out', isError: true });
  });

  it('leaves no server process behind after close', async () => {
    const { bus, events } = recordingBus();
    hub = new McpHub([builtinToolsServerSpec(config.path), everythingSpec()], { bus });
    await hub.start();
    const pids = hub.servers().map((s) => s.pid);
    expect(pids.every((pid) => typeof pid === 'number' && isRunning(pid))).toBe(true);
    await hub.close();
    for (const pid of pids) expect(isRunning(pid!)).toBe(false);
    expect(hub.servers().map((s) => s.state)).toEqual(['stopped', 'stopped']);
    expect(statesOf(events, 'tools').at(-1)).toBe('stopped');
    await expect(hub.callTool('greet', {})).rejects.toMatchObject({ code: 'TOOL_UNAVAILABLE' });
  });
});
