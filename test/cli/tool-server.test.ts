import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

  it('serves just the files named', async () => {
    server = await connectStdio(process.execPath, [CLI, 'tool-server', '--config-dir', dir.path, `${dir.path}/tools/b.toml`]);
    expect((await server.client.listTools()).tools.map((t) => t.name)).toEqual(['b']);
  });
});
