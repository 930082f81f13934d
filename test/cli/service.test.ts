import { execFile, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);

function hasSystemdAnalyze(): boolean {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const SYSTEMD_ANALYZE = hasSystemdAnalyze();
if (!SYSTEMD_ANALYZE) console.warn('service test: systemd-analyze is not installed (Debian package systemd): the unit is not checked by `systemd-analyze verify`');

let home: TempDir;
let env: Record<string, string>;
let unit: string;
beforeEach(async () => {
  home = await makeTempDir('da-service-');
  env = { HOME: home.path, XDG_CONFIG_HOME: join(home.path, 'xdg'), DESKTOP_ASSISTANT_CONFIG_DIR: '' };
  unit = join(home.path, 'xdg', 'systemd', 'user', 'desktop-assistant.service');
});
afterEach(() => home.remove());

/** ExecStart's words as systemd splits them: blanks outside double quotes, `\"` and `\\` inside, `%%` and `$$` for % and $. */
function execStart(text: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith('ExecStart='));
  if (!line) throw new Error('no ExecStart= line');
  const words = [...line.slice('ExecStart='.length).matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  return words.map((w) => w.replace(/\\(.)/g, '$1').replace(/%%/g, '%').replace(/\$\$/g, '$'));
}

describe('desktop-assistant service install and uninstall', () => {
  it('writes a user unit that runs this node and this CLI with `run --config-dir`, restarts on failure and carries PATH', async () => {
    // A blank, a % (a systemd specifier) and a $ (a variable) in the folder's name: each must reach `run` as it is.
    const configDir = join(home.path, 'my config %h $HOME');
    const result = await runCli(['service', 'install', '--config-dir', configDir], { ...env, PATH: `/opt/tools/bin:${process.env.PATH}` });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`wrote ${unit}`);
    for (const next of ['systemctl --user daemon-reload', 'systemctl --user enable --now desktop-assistant', 'journalctl --user -u desktop-assistant -f']) {
      expect(result.stdout).toContain(next);
    }

    const text = readFileSync(unit, 'utf8');
    expect(text.split('\n')[0]).toBe('# Written by `desktop-assistant service install`; `desktop-assistant service uninstall` removes it.');
    expect(execStart(text)).toEqual([process.execPath, CLI, 'run', '--config-dir', configDir]);
    expect(existsSync(process.execPath) && existsSync(CLI)).toBe(true);
    expect(text).toMatch(/^Restart=on-failure$/m);
    expect(text).toMatch(/^WantedBy=default\.target$/m);
    const path = /^Environment="PATH=([^"]*)"$/m.exec(text)?.[1];
    expect(path?.split(':')).toContain('/opt/tools/bin');
    expect(path?.split(':')).toContain(join(process.execPath, '..'));
    expect(text).toContain(`EnvironmentFile=-${configDir.replace(/%/g, '%%')}/service.env`);
    expect(lstatSync(unit).mode & 0o777).toBe(0o644);
  });

  it('without --config-dir or DESKTOP_ASSISTANT_CONFIG_DIR runs `run` alone, and honours HOME when XDG_CONFIG_HOME is unset', async () => {
    const result = await runCli(['service', 'install'], { ...env, XDG_CONFIG_HOME: '' });
    expect(result.code).toBe(0);
    const atHome = join(home.path, '.config', 'systemd', 'user', 'desktop-assistant.service');
    expect(execStart(readFileSync(atHome, 'utf8'))).toEqual([process.execPath, CLI, 'run']);
  });

  it('passes DESKTOP_ASSISTANT_CONFIG_DIR as --config-dir: the service does not get the shell’s variables', async () => {
    const result = await runCli(['service', 'install'], { ...env, DESKTOP_ASSISTANT_CONFIG_DIR: join(home.path, 'conf') });
    expect(result.code).toBe(0);
    expect(execStart(readFileSync(unit, 'utf8'))).toEqual([process.execPath, CLI, 'run', '--config-dir', join(home.path, 'conf')]);
  });

  it.skipIf(!SYSTEMD_ANALYZE)('writes a unit that `systemd-analyze verify --user` accepts without a word', async () => {
    expect((await runCli(['service', 'install', '--config-dir', join(home.path, 'my config %h $HOME')], env)).code).toBe(0);
    // The user manager it simulates needs a runtime folder of its own.
    const runtime = join(home.path, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    const verified = await run('systemd-analyze', ['verify', '--user', unit], { env: { ...process.env, ...env, XDG_RUNTIME_DIR: runtime } });
    // verify exits 0 on some complaints (an unknown key is only "ignoring"): no line may name the unit.
    expect(verified.stderr.split('\n').filter((l) => l.includes('desktop-assistant.service'))).toEqual([]);
  });

  it('installing again updates its own unit and says to restart', async () => {
    expect((await runCli(['service', 'install'], env)).code).toBe(0);
    const again = await runCli(['service', 'install', '--config-dir', join(home.path, 'conf')], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`updated ${unit}`);
    expect(again.stdout).toContain('systemctl --user restart desktop-assistant');
    expect(execStart(readFileSync(unit, 'utf8'))).toContain('--config-dir');
  });

  it('refuses to overwrite a unit it did not write, unless --force', async () => {
    const foreign = '[Service]\nExecStart=/usr/bin/true\n';
    await home.write('xdg/systemd/user/desktop-assistant.service', foreign);
    const refused = await runCli(['service', 'install'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('was not written by `desktop-assistant service install`');
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(unit, 'utf8')).toBe(foreign);

    const forced = await runCli(['service', 'install', '--force'], env);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('replaced');
    expect(execStart(readFileSync(unit, 'utf8'))).toEqual([process.execPath, CLI, 'run']);
  });

  it('uninstall removes its unit and the link `systemctl --user enable` made, and says to stop and reload', async () => {
    expect((await runCli(['service', 'install'], env)).code).toBe(0);
    const wants = join(home.path, 'xdg', 'systemd', 'user', 'default.target.wants');
    mkdirSync(wants);
    symlinkSync(unit, join(wants, 'desktop-assistant.service'));
    const removed = await runCli(['service', 'uninstall'], env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`removed ${unit}`);
    expect(removed.stdout).toContain('systemctl --user stop desktop-assistant');
    expect(removed.stdout).toContain('systemctl --user daemon-reload');
    expect(existsSync(unit)).toBe(false);
    expect(() => lstatSync(join(wants, 'desktop-assistant.service'))).toThrow();

    const again = await runCli(['service', 'uninstall'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to remove');
  });

  it('uninstall leaves a unit it did not write', async () => {
    await home.write('xdg/systemd/user/desktop-assistant.service', '[Service]\nExecStart=/usr/bin/true\n');
    const refused = await runCli(['service', 'uninstall'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('left as it is');
    expect(existsSync(unit)).toBe(true);
  });
});
