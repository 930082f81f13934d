import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

let home: TempDir;
let env: Record<string, string>;
beforeEach(async () => {
  home = await makeTempDir('da-run-');
  env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run') };
  await home.write('config/config.toml', ONLY_TOOL_FILES);
  await home.write('config/tools/echo.toml', 'description = "Echo"\ncommand = ["echo", "hi"]\n');
});
afterEach(() => home.remove());

describe('desktop-assistant run and token', () => {
  it('has no token before the first run, and says when it will have one', async () => {
    const run = await runCli(['token'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('it is made when `desktop-assistant run` first starts');
  });

  it('runs the daemon with --no-voice, prints where, serves the API, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, 'run', '--no-voice', '--port', '0', '--config-dir', join(home.path, 'config')], {
      env: { ...process.env, ...env },
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const url = await waitFor(() => /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)?.[1], 'the daemon to start', 15_000);
    expect(stdout).toContain('tools: echo');
    const token = (await runCli(['token'], env)).stdout.trim();
    expect(token.length).toBeGreaterThanOrEqual(40);
    const tools = await (await fetch(`${url}/tools`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(tools.tools.map((t: { name: string }) => t.name)).toEqual(['echo']);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });


  it('refuses a bad --port as a usage error', async () => {
    const run = await runCli(['run', '--no-voice', '--port', 'eighty'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--port must be a port number');
  });
});
