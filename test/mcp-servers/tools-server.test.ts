import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectToolsServer, resultText, type StdioServerHandle } from '../helpers/mcp-stdio.js';
import { TOOLS_SERVER } from '../helpers/paths.js';
import { isRunning } from '../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

const run = promisify(execFile);

let config: TempDir;
let server: StdioServerHandle | undefined;

beforeEach(async () => {
  config = await makeTempDir('da-tools-');
  await config.write('config.toml', '[env]\nTOOL_GREETING = "hello from config"\n');
  await config.write('tools/echo.sh', '#!/bin/sh\nprintf "%s|" "$@"\n', 0o755);
  await config.write(
    'tools/echo.toml',
    'description = "Echo"\ncommand = ["echo.sh", "{a}", "x{b}y"]\nrisk = "write"\nannounce.en = ["Echoing."]\n[params.a]\n[params.b]\ntype = "integer"\n',
  );
  await config.write('tools/greet.toml', 'description = "Greeting"\ncommand = ["sh", "-c", "printf %s \\"$TOOL_GREETING\\""]\n');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await config.remove();
});

async function call(name: string, args: unknown): Promise<{ text: string; isError: boolean }> {
  const result = await server!.client.request({ method: 'tools/call', params: { name, arguments: args as Record<string, unknown> } }, CallToolResultSchema);
  return { text: resultText(result), isError: result.isError === true };
}

async function toolNames(): Promise<string[]> {
  return (await server!.client.listTools()).tools.map((t) => t.name);
}

describe('the tools MCP server over stdio', () => {
  it('lists one tool per file with its schema, annotations and host details', async () => {
    server = await connectToolsServer(config.path);
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'greet']);
    const echo = tools[0]!;
    expect(echo.description).toBe('Echo');
    expect(echo.inputSchema).toEqual({
      type: 'object',
      properties: { a: { type: 'string', description: '' }, b: { type: 'integer', description: '' } },
      additionalProperties: false,
    });
    expect(echo.annotations).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(echo._meta).toMatchObject({ 'desktop-assistant/risk': 'write', 'desktop-assistant/announce': { en: ['Echoing.'] } });
    expect(server.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  });

  it('runs a call without a shell and with config [env]', async () => {
    server = await connectToolsServer(config.path);
    expect(await call('echo', { a: 'x; rm -rf ~', b: 2 })).toEqual({ text: 'x; rm -rf ~|x2y|', isError: false });
    expect(await call('echo', {})).toEqual({ text: '|xy|', isError: false });
    expect(await call('greet', {})).toEqual({ text: 'hello from config', isError: false });
  });

  it('answers bad calls with error results, never a crash', async () => {
    server = await connectToolsServer(config.path);
    expect(await call('nope', {})).toEqual({ text: 'error: no tool named nope', isError: true });
    expect(await call('echo', [1])).toEqual({ text: 'error: arguments must be a JSON object', isError: true });
    expect(await call('echo', 'x')).toEqual({ text: 'error: arguments must be a JSON object', isError: true });
    expect(await call('echo', { a: 'still alive' })).toEqual({ text: 'still alive|xy|', isError: false });
  });

  it('kills a timed-out tool and its grandchildren', async () => {
    await config.write('tools/slow.sh', `#!/bin/sh\nsleep 30 &\necho $! > "${config.path}/slow.pid"\nwait\n`, 0o755);
    await config.write('tools/slow.toml', 'description = "Slow"\ncommand = ["slow.sh"]\ntimeout = 0.3\n');
    server = await connectToolsServer(config.path);
    const started = Date.now();
    expect(await call('slow', {})).toEqual({ text: 'error: timed out', isError: true });
    expect(Date.now() - started).toBeLessThan(2300);
    const pid = Number(await readFile(`${config.path}/slow.pid`, 'utf8'));
    await waitFor(() => (isRunning(pid) ? undefined : true), `pid ${pid} to end`, 2000);
  });

  it('stops the tool when the client cancels the call', async () => {
    await config.write('tools/wait.sh', `#!/bin/sh\necho $$ > "${config.path}/wait.pid"\nexec sleep 30\n`, 0o755);
    await config.write('tools/wait.toml', 'description = "Wait"\ncommand = ["wait.sh"]\ntimeout = 60\n');
    server = await connectToolsServer(config.path);
    const controller = new AbortController();
    const pending = server.client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
    const pid = await waitFor(() => readFile(`${config.path}/wait.pid`, 'utf8').then(Number, () => undefined), 'the tool to start');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => (isRunning(pid) ? undefined : true), `pid ${pid} to end after cancellation`, 2000);
  });

  it('serves only the files named on the command line', async () => {
    server = await connectToolsServer(config.path, [`${config.path}/tools/greet.toml`]);
    expect(await toolNames()).toEqual(['greet']);
    expect(await call('greet', {})).toEqual({ text: 'hello from config', isError: false });
  });
});

describe('following the tools folder', () => {
  it('sends list_changed for a new, changed and removed file', async () => {
    server = await connectToolsServer(config.path);
    let notifications = 0;
    server.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notifications += 1;
    });

    await config.write('tools/later.toml', 'description = "Later"\ncommand = ["echo", "later"]\n');
    await waitFor(() => (notifications >= 1 ? true : undefined), 'list_changed after adding a file');
    expect(await toolNames()).toEqual(['echo', 'greet', 'later']);
    expect(await call('later', {})).toEqual({ text: 'later', isError: false });

    await config.write('tools/later.toml', 'description = "Later, changed"\ncommand = ["echo", "changed"]\n');
    await waitFor(() => (notifications >= 2 ? true : undefined), 'list_changed after changing a file');
    expect(await call('later', {})).toEqual({ text: 'changed', isError: false });

    await rm(`${config.path}/tools/later.toml`);
    await waitFor(() => (notifications >= 3 ? true : undefined), 'list_changed after removing a file');
    expect(await toolNames()).toEqual(['echo', 'greet']);
  });

  it('follows a tools folder created after it started (copied in while the daemon runs)', async () => {
    await rm(`${config.path}/tools`, { recursive: true });
    server = await connectToolsServer(config.path);
    expect(await toolNames()).toEqual([]);
    let notifications = 0;
    server.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notifications += 1;
    });
    await config.write('tools/later.toml', 'description = "Later"\ncommand = ["echo", "later"]\n');
    await waitFor(() => (notifications >= 1 ? true : undefined), 'list_changed once the folder appeared');
    expect(await toolNames()).toEqual(['later']);
    // And from then on the folder itself is followed.
    await config.write('tools/more.toml', 'description = "More"\ncommand = ["echo", "more"]\n');
    await waitFor(async () => ((await toolNames()).includes('more') ? true : undefined), 'the second file');
  });

  it('keeps the last good version of a file that became invalid and reports it on stderr', async () => {
    server = await connectToolsServer(config.path);
    await config.write('tools/greet.toml', 'description = "Greeting"\ncomand = ["oops"]\n');
    const line = await waitFor(
      () => server!.stderr().split('\n').find((l) => l.includes('tool_file_invalid') && l.includes('unknown key comand')),
      'the structured error line',
    );
    expect(JSON.parse(line)).toMatchObject({ level: 'error', event: 'tool_file_invalid' });
    expect(line).toContain(`${config.path}/tools/greet.toml`);
    expect(await toolNames()).toEqual(['echo', 'greet']);
    expect(await call('greet', {})).toEqual({ text: 'hello from config', isError: false });
  });
});

describe('start-up', () => {
  it('serves the good files and names a broken one', async () => {
    await config.write('tools/broken.toml', 'description = "no command"\n');
    server = await connectToolsServer(config.path);
    expect(await toolNames()).toEqual(['echo', 'greet']);
    await waitFor(() => (server!.stderr().includes(`${config.path}/tools/broken.toml: missing key command`) ? true : undefined), 'the start-up error');
  });

  it('refuses to start on a bad config.toml and says why', async () => {
    await config.write('config.toml', '[whisper]\nprot = 1\n');
    const failure = await run(process.execPath, [TOOLS_SERVER, '--config-dir', config.path]).catch((e: { code: number; stderr: string }) => e);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain('config: unknown key whisper.prot');
  });
});
