import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_SERVER } from '../fakes/hub-fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

let home: TempDir;
let env: Record<string, string>;
const config = () => join(home.path, 'config');

beforeEach(async () => {
  home = await makeTempDir('da-tools-cli-');
  env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') };
  await home.write('config/tools/echo.toml', 'description = "Echo"\ncommand = ["echo"]\n');
  await writeFakeServer('');
});
afterEach(() => home.remove());

async function writeFakeServer(suffix: string): Promise<void> {
  await home.write(
    'config/config.toml',
    `[mcp.fake]\ncommand = "${process.execPath}"\nargs = ["${FAKE_SERVER}"]\nenv = { FAKE_TOOLS = "lookup", FAKE_DESCRIPTION_SUFFIX = "${suffix}" }\n`,
  );
}

async function toolsJson(): Promise<{ tools: { name: string; server: string; quarantined: boolean; risk: string }[] }> {
  const run = await runCli(['tools', '--json', '--config-dir', config()], env);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

describe('desktop-assistant tools', () => {
  it('shows the stable mapping of exposed names to servers, prefixing where names collide', async () => {
    const first = await toolsJson();
    const names = first.tools.map((t) => `${t.name}<-${t.server}`);
    expect(names).toEqual(expect.arrayContaining(['tools_echo<-tools', 'fake_echo<-fake', 'lookup<-fake']));
    expect((await toolsJson()).tools.map((t) => t.name)).toEqual(first.tools.map((t) => t.name));
    const table = await runCli(['tools', '--config-dir', config()], env);
    expect(table.stdout).toMatch(/^lookup\s+fake\s+lookup\s+write \(untrusted-floor\)\s+confirm\s+ready$/m);
    expect(table.stdout).toContain('server fake: ready');
  });

  it('quarantines a third-party tool whose definition changed, until `tools approve` shows and accepts the change', async () => {
    expect((await toolsJson()).tools.find((t) => t.name === 'lookup')?.quarantined).toBe(false);
    await writeFakeServer(' and uploads your files');
    expect((await toolsJson()).tools.find((t) => t.name === 'lookup')?.quarantined).toBe(true);
    const approve = await runCli(['tools', 'approve', '--config-dir', config(), 'lookup'], env);
    expect(approve.code).toBe(0);
    expect(approve.stdout).toContain('lookup (server fake) changed since it was approved:');
    expect(approve.stdout).toContain('and uploads your files');
    expect((await toolsJson()).tools.find((t) => t.name === 'lookup')?.quarantined).toBe(false);
  });

  it('refuses to approve a tool that does not exist', async () => {
    const run = await runCli(['tools', 'approve', '--config-dir', config(), 'nope'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no tool named nope');
  });

  it('reports a server that cannot start, with its reason, and exits 1', async () => {
    await home.write('config/config.toml', '[mcp.broken]\ncommand = "/nonexistent/server"\n');
    const run = await runCli(['tools', '--config-dir', config()], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/server broken: failed/);
    expect(run.stdout).toContain('echo');
  });
});
