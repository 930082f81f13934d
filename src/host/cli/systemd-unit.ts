import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { AppError } from '../../errors/index.js';

export const UNIT_NAME = 'desktop-assistant.service';

/** The first line of a unit we wrote: install replaces and uninstall removes only a file that has it. */
export const OURS_MARKER = '# Written by `desktop-assistant service install`; `desktop-assistant service uninstall` removes it.';

/** `${XDG_CONFIG_HOME:-~/.config}/systemd/user`, where systemd looks for a user's own units. */
export function userUnitDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'systemd', 'user');
}

export function isOurUnit(text: string): boolean {
  return text.split('\n').some((line) => line.trim() === OURS_MARKER);
}

export interface UnitOptions {
  /** Absolute: node itself (process.execPath). */
  node: string;
  /** Absolute: the compiled CLI, dist/src/host/cli/main.js. */
  cli: string;
  /** Absolute, passed to `run --config-dir` when set. */
  configDir?: string;
  /** Absolute: optional variables for the daemon (an API key), one NAME=value a line. */
  environmentFile: string;
  /** The PATH the daemon gets. */
  path: string;
}

/**
 * The daemon as a systemd user service. Paths are absolute because the
 * user manager's PATH is its own (no nvm, no ~/.local/bin): node, the CLI,
 * and the PATH that tool commands and espeak-ng are looked up in are the
 * installing shell's.
 */
export function unitText(options: UnitOptions): string {
  const exec = [options.node, options.cli, 'run', ...(options.configDir ? ['--config-dir', options.configDir] : [])];
  return [
    OURS_MARKER,
    '# Install it again after moving node or this package: the paths below are absolute.',
    '[Unit]',
    'Description=desktop-assistant: a local voice assistant and MCP agent host',
    // Ordering only: the sound server, when it runs as one of these user services.
    'After=pipewire-pulse.service pulseaudio.service',
    // A daemon that cannot start (a bad config, no microphone) stops retrying after three tries in a minute.
    'StartLimitIntervalSec=60',
    'StartLimitBurst=3',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec.map(execArg).join(' ')}`,
    `Environment=${quoted(`PATH=${options.path}`, false)}`,
    `EnvironmentFile=-${escapeSpecifiers(noControl(options.environmentFile))}`,
    'Restart=on-failure',
    'RestartSec=5',
    'SyslogIdentifier=desktop-assistant',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** PATH as the installing shell has it, with node's own folder in it (tools written as `#!/usr/bin/env node` scripts). */
export function servicePath(envPath: string | undefined, node: string): string {
  const parts = (envPath || '/usr/local/bin:/usr/bin:/bin').split(delimiter).filter((p) => p !== '');
  const nodeDir = dirname(node);
  return (parts.includes(nodeDir) ? parts : [nodeDir, ...parts]).join(delimiter);
}

/** One ExecStart word: systemd splits on blanks, expands `%` specifiers and `$VARIABLES`. */
function execArg(arg: string): string {
  return /^[\w@+=:,./-]+$/.test(arg) ? arg : quoted(arg, true);
}

function quoted(value: string, dollars: boolean): string {
  let escaped = escapeSpecifiers(noControl(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"'));
  if (dollars) escaped = escaped.replace(/\$/g, '$$$$');
  return `"${escaped}"`;
}

function escapeSpecifiers(value: string): string {
  return value.replace(/%/g, '%%');
}

function noControl(value: string): string {
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new AppError('SERVICE_PATH_INVALID', `cannot put ${JSON.stringify(value)} in a unit file: it has a control character (a newline?)`);
  return value;
}
