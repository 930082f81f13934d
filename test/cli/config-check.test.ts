import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir('da-cli-');
});
afterEach(() => dir.remove());

describe('desktop-assistant config check', () => {
  it('prints the effective configuration as TOML and exits 0', async () => {
    await dir.write('config.toml', 'tool_rounds = 5\n[whisper]\nport = 9000\n[env]\nSEARXNG_URL = "http://searxng.example.org"\n');
    await dir.write('tools/now.toml', 'description = "Now"\ncommand = ["date"]\n');
    const run = await runCli(['config', 'check', '--config-dir', dir.path]);
    expect(run.code).toBe(0);
    const printed = parse(run.stdout) as Record<string, any>;
    expect(printed.tool_rounds).toBe(5);
    expect(printed.whisper).toEqual({ model: expect.any(String), device: 0, port: 9000, binary: 'whisper-server', url: '' });
    expect(printed.card).toBe('Microphone');
    expect(printed.env).toEqual({ SEARXNG_URL: 'http://searxng.example.org' });
    expect(run.stdout).toContain('# now (read, timeout 10 s): ["date"]');
  });

  it('takes the folder from DESKTOP_ASSISTANT_CONFIG_DIR', async () => {
    await dir.write('config.toml', 'card = "FromEnv"\n');
    const run = await runCli(['config', 'check'], { DESKTOP_ASSISTANT_CONFIG_DIR: dir.path });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('card = "FromEnv"');
  });

  it('accepts a missing folder: built-in defaults', async () => {
    const run = await runCli(['config', 'check', '--config-dir', `${dir.path}/none`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('(not found: built-in defaults)');
  });

  it('does not print [env] values whose names look secret', async () => {
    await dir.write('config.toml', '[env]\nOPENWEATHER_API_KEY = "s3cr3t-value"\nPLAIN = "shown"\n');
    const run = await runCli(['config', 'check', '--config-dir', dir.path]);
    expect(run.stdout).not.toContain('s3cr3t-value');
    expect(run.stdout).toContain('OPENWEATHER_API_KEY = "<hidden>"');
    expect(run.stdout).toContain('PLAIN = "shown"');
  });

  it('refuses a config or tool file that is not UTF-8, naming the file, the line and the byte offset', async () => {
    await writeFile(join(dir.path, 'config.toml'), Buffer.from('system = "caf\xe9"\n', 'latin1'));
    await dir.write('tools/ok.toml', 'description = "d"\ncommand = ["date"]\n');
    await writeFile(join(dir.path, 'tools/latin1.toml'), Buffer.from('# a tool\ndescription = "caf\xe9"\ncommand = ["date"]\n', 'latin1'));
    const run = await runCli(['config', 'check', '--config-dir', dir.path]);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toContain(`config: ${dir.path}/config.toml:1: not UTF-8 (TOML files must be): byte 0xE9 at offset 13; save the file as UTF-8`);
    expect(lines).toContain(`${dir.path}/tools/latin1.toml:2: not UTF-8 (TOML files must be): byte 0xE9 at offset 27; save the file as UTF-8`);
    expect(run.stderr).not.toContain('\uFFFD');
  });

  it('refuses a tool whose command uses a placeholder no parameter declares (a typo), naming the file and the placeholder', async () => {
    await dir.write('tools/weather.toml', 'description = "w"\ncommand = ["weather.sh", "{plcae}", "{when}"]\n[params.place]\ntype = "string"\n[params.when]\ntype = "string"\n');
    const run = await runCli(['config', 'check', '--config-dir', dir.path]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toContain(`${dir.path}/tools/weather.toml: command uses {plcae}, but no [params.plcae] declares it (a typo?)`);
  });

  it('prints every error of config.toml and the tool files, and exits 1', async () => {
    await dir.write('config.toml', 'cards = "X"\n[whisper]\nport = "x"\n');
    await dir.write('tools/nodesc.toml', 'command = ["date"]\n');
    await dir.write('tools/badtype.toml', 'description = "d"\ncommand = ["date"]\n[params.x]\ntype = "float"\n');
    await dir.write('tools/syntax.toml', 'description = "d"\ncommand = [\n');
    const run = await runCli(['config', 'check', '--config-dir', dir.path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toContain('config: unknown key cards');
    expect(lines).toContain('config: whisper.port must be a number (got string)');
    expect(lines).toContain(`${dir.path}/tools/nodesc.toml: missing key description`);
    expect(lines).toContain(`${dir.path}/tools/badtype.toml: params.x.type must be one of "string", "integer", "number", "boolean"`);
    expect(lines.some((l) => l.startsWith(`${dir.path}/tools/syntax.toml:3:1: invalid TOML:`))).toBe(true);
    expect(lines.at(-1)).toBe(`5 errors in ${dir.path}`);
  });

  it('names the line and column of a syntax error in config.toml', async () => {
    const file = await dir.write('config.toml', 'card = "A"\ncard = "B"\n');
    const run = await runCli(['config', 'check', '--config-dir', dir.path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`config: ${file}:2:\\d+: invalid TOML: `));
  });
});

describe('the command line', () => {
  it('lists the commands on --help', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('desktop-assistant config check');
    expect(run.stdout).toContain('desktop-assistant tool-server');
  });

  it('refuses an unknown command with exit 2', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command: frobnicate');
  });

  it('refuses an unknown option with the usage and exit 2', async () => {
    const run = await runCli(['config', 'check', '--nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: desktop-assistant config check [--config-dir DIR]');
  });
});
