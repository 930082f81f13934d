import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { connectStdio, resultText, type StdioServerHandle } from '../helpers/mcp-stdio.js';
import { CLI } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

let dir: TempDir;
let server: StdioServerHandle | undefined;
beforeEach(async () => {
  dir = await makeTempDir('da-cli-');
  await dir.write('tools/a.toml', 'description = "A"\ncommand = ["echo", "a", "{x}"]\n[params.x]\n');
  await dir.write('tools/b.toml', 'description = "B"\ncommand = ["echo", "b"]\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await dir.remove();
});

describe('desktop-assistant tool-server', () => {
  it('serves every tool file of the config folder', async () => {
    server = await connectStdio(process.execPath, [CLI, 'tool-server', '--config-dir', dir.path]);
    expect((await server.client.listTools()).tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(resultText(await server.client.callTool({ name: 'a', arguments: { x: 'one two' } }))).toBe('a one two');
  });

  it('keeps serving its last good tools when the tools folder is replaced by a file, and says why', async () => {
    server = await connectStdio(process.execPath, [CLI, 'tool-server', '--config-dir', dir.path]);
    expect((await server.client.listTools()).tools.map((t) => t.name)).toEqual(['a', 'b']);
    await rm(join(dir.path, 'tools'), { recursive: true });
    await writeFile(join(dir.path, 'tools'), 'not a folder\n');
    await waitFor(() => (server!.stderr().includes('tools: cannot list the tool files: it is not a folder') ? true : undefined), 'the folder problem on stderr');
    expect(server.stderr()).toContain('the tools stay as last loaded');
    expect((await server.client.listTools()).tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(resultText(await server.client.callTool({ name: 'b', arguments: {} }))).toBe('b');
  });

  it('refuses a tool file too big to offer, by name, and serves the others', async () => {
    await dir.write('tools/huge.toml', `description = "${'x'.repeat(11_000_000)}"\ncommand = ["echo"]\n`);
    await dir.write('tools/long.toml', `description = "${'y'.repeat(5000)}"\ncommand = ["echo"]\n`);
    server = await connectStdio(process.execPath, [CLI, 'tool-server', '--config-dir', dir.path]);
    expect((await server.client.listTools()).tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(server.stderr()).toContain(`${dir.path}/tools/huge.toml: 11000036 bytes; a tool file may be at most 65536 bytes`);
    expect(server.stderr()).toContain(`${dir.path}/tools/long.toml: description must be at most 4096 characters`);
  });

  it('answers an argument over the kernel limit or with a NUL byte with the tool result "error: cannot run", not a protocol error', async () => {
    server = await connectStdio(process.execPath, [CLI, 'tool-server', '--config-dir', dir.path]);
    const huge = await server.client.callTool({ name: 'a', arguments: { x: 'y'.repeat(1_000_000) } });
    expect(huge.isError).toBe(true);
    expect(resultText(huge)).toMatch(/^error: cannot run echo: /);
    const nul = await server.client.callTool({ name: 'a', arguments: { x: 'a\u0000b' } });
    expect(nul.isError).toBe(true);
    expect(resultText(nul)).toMatch(/^error: cannot run echo: .*NUL/);
    expect(resultText(await server.client.callTool({ name: 'b', arguments: {} }))).toBe('b');
  });

  it('serves just the files named', async () => {
    server = await connectStdio(process.execPath, [CLI, 'tool-server', '--config-dir', dir.path, `${dir.path}/tools/b.toml`]);
    expect((await server.client.listTools()).tools.map((t) => t.name)).toEqual(['b']);
  });
});
