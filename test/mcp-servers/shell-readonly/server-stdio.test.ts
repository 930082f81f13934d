import { existsSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectStdio, type StdioServerHandle } from '../../helpers/mcp-stdio.js';
import { DIST } from '../../helpers/paths.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';
import { makeRepo } from './fixture.js';
import { outcomeOf, type CallOutcome } from './harness.js';

const SERVER = join(DIST, 'mcp-servers/shell-readonly/main.js');

let config: TempDir;
let home: TempDir;
let inside: string;
let server: StdioServerHandle | undefined;

beforeAll(() => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` first`);
});

beforeEach(async () => {
  config = await makeTempDir('da-shell-config-');
  home = await makeTempDir('da-shell-home-');
  inside = await realpath(home.path);
  await home.write('notes.txt', 'alpha\nbeta\n');
  await makeRepo(join(inside, 'repo'), { 'readme.md': 'hello\n' }, 'inside commit');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await config.remove();
  await home.remove();
});

async function start(section: string, env: Record<string, string> = {}): Promise<StdioServerHandle> {
  await config.write('config.toml', `[adapters.shell_readonly]\n${section}\n`);
  server = await connectStdio(process.execPath, [SERVER, '--config-dir', config.path], env);
  return server;
}

async function call(args: unknown, options: { signal?: AbortSignal } = {}): Promise<CallOutcome> {
  const result = await server!.client.request(
    { method: 'tools/call', params: { name: 'shell.readonly', arguments: args as Record<string, unknown> } },
    CallToolResultSchema,
    options,
  );
  return outcomeOf(result);
}

/** Pids of processes whose command line contains `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

describe('the compiled shell-readonly server over stdio', () => {
  it('lists shell.readonly with its schema and read risk', async () => {
    await start(`allowed_dirs = [${JSON.stringify(inside)}]`);
    const { tools } = await server!.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['shell.readonly']);
    expect(tools[0]).toMatchObject({
      inputSchema: {
        type: 'object',
        properties: { argv: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 64 }, cwd: { type: 'string' } },
        required: ['argv'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { 'desktop-assistant/risk': 'read', 'desktop-assistant/timeoutMs': 10_000 },
    });
  });

  it('answers a good call, a refused call and a malformed call', async () => {
    await start(`allowed_dirs = [${JSON.stringify(inside)}]`);
    expect(await call({ argv: ['cat', 'notes.txt'] })).toEqual({ text: 'alpha\nbeta', isError: false });
    expect(await call({ argv: ['git', 'log', '--format=%s'], cwd: 'repo' })).toEqual({ text: 'inside commit', isError: false });
    expect(await call({ argv: ['find', '.', '-delete'] })).toMatchObject({ isError: true, code: 'SHELL_COMMAND_REFUSED' });
    expect(await call({ argv: ['cat', '/etc/passwd'] })).toMatchObject({ isError: true, code: 'SHELL_PATH_OUTSIDE' });
    expect(await call('ls -la')).toMatchObject({ isError: true, code: 'SHELL_ARGUMENTS_INVALID' });
    expect(await call({ argv: ['ls'] })).toMatchObject({ isError: false });
  });

  it('defaults to the home directory and ignores its own GIT_* and PATH', async () => {
    await start('timeout = 5', {
      HOME: inside,
      GIT_DIR: '/nonexistent/.git',
      GIT_CONFIG_PARAMETERS: "'format.pretty'='PWNED %H'",
      PATH: `${inside}/bin:/usr/bin:/bin`,
    });
    expect(await call({ argv: ['pwd'] })).toEqual({ text: inside, isError: false });
    expect(await call({ argv: ['git', 'log', '-1', '--oneline'], cwd: 'repo' })).toMatchObject({ text: expect.stringMatching(/^[0-9a-f]+ inside commit$/), isError: false });
  });

  it('stops a command at the configured timeout and leaves no process behind', async () => {
    const marker = `da-timeout-${process.pid}-${Date.now()}`;
    await start(`allowed_dirs = [${JSON.stringify(inside)}, "/usr"]\ntimeout = 0.3`);
    const started = Date.now();
    const outcome = await call({ argv: ['grep', '-r', marker, '/usr'] });
    expect(outcome).toMatchObject({ isError: true, code: 'SHELL_TIMEOUT' });
    expect(JSON.parse(outcome.text).error.message).toBe('grep did not finish within 0.3 s and was stopped');
    expect(Date.now() - started).toBeLessThan(3000);
    await waitFor(async () => ((await processesWith(marker)).length === 0 ? true : undefined), 'grep to be gone', 2000);
  });

  it('stops the command when the client cancels the call', async () => {
    const marker = `da-cancel-${process.pid}-${Date.now()}`;
    await start(`allowed_dirs = [${JSON.stringify(inside)}, "/usr"]\ntimeout = 60`);
    const controller = new AbortController();
    const pending = call({ argv: ['grep', '-r', marker, '/usr'] }, { signal: controller.signal });
    await waitFor(async () => ((await processesWith(marker)).length > 0 ? true : undefined), 'grep to start');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(async () => ((await processesWith(marker)).length === 0 ? true : undefined), 'grep to be gone after the cancel', 2000);
  });
});
