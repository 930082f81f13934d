import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { configDir } from '../../../config/index.js';
import { AppError } from '../../../errors/index.js';
import { PACKAGE_ROOT } from '../../../package-root.js';
import type { CliCommand } from '../command.js';
import { isOurUnit, servicePath, unitText, UNIT_NAME, userUnitDir } from '../systemd-unit.js';

/*
 * These commands write and remove the unit file and print the systemctl
 * commands rather than run them: enabling starts a daemon that opens the
 * microphone, which is the user's call, and where no user manager runs
 * (a container, an SSH session without lingering) systemctl only fails.
 */

const SERVICE = UNIT_NAME.replace(/\.service$/, '');

export const serviceInstallCommand: CliCommand = {
  name: 'service install',
  usage: 'desktop-assistant service install [--config-dir DIR] [--force]',
  summary: `write a systemd user unit that runs the daemon (~/.config/systemd/user/${UNIT_NAME}); --force replaces one that is not ours`,
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' }, force: { type: 'boolean' } } });
    // The service does not get this shell's variables: a folder chosen by either goes on the command line.
    const chosen = values['config-dir'] || io.env.DESKTOP_ASSISTANT_CONFIG_DIR || undefined;
    const cli = join(PACKAGE_ROOT, 'dist', 'src', 'host', 'cli', 'main.js');
    if (!existsSync(cli)) throw new AppError('SERVICE_NOT_BUILT', `${cli} is missing: build the package first (npm run build)`);
    const file = join(userUnitDir(io.env), UNIT_NAME);
    const existing = readIfThere(file);
    const foreign = existing !== undefined && !isOurUnit(existing);
    if (foreign && !values.force) {
      io.stderr.write(`desktop-assistant: ${file} is there and was not written by \`desktop-assistant service install\`: left as it is (--force replaces it)\n`);
      return 1;
    }
    const environmentFile = join(resolve(configDir(chosen, io.env)), 'service.env');
    const text = unitText({
      node: process.execPath,
      cli,
      configDir: chosen === undefined ? undefined : resolve(chosen),
      environmentFile,
      path: servicePath(io.env.PATH, process.execPath),
    });
    mkdirSync(dirname(file), { recursive: true });
    // Whole or not at all: systemd may read the folder at any time.
    writeFileSync(`${file}.tmp`, text, { mode: 0o644 });
    renameSync(`${file}.tmp`, file);
    const what = existing === undefined ? 'wrote' : foreign ? 'replaced (it was not ours: --force)' : 'updated';
    io.stdout.write(
      `${what} ${file}\n` +
        `Variables for the daemon (OPENAI_API_KEY=..., OWNER_ASSISTANT_MODE=...) go in ${environmentFile}, one NAME=value a line.\n` +
        nextCommands(existing === undefined ? ['daemon-reload', `enable --now ${SERVICE}`] : ['daemon-reload', `restart ${SERVICE}`], true),
    );
    return 0;
  },
};

export const serviceUninstallCommand: CliCommand = {
  name: 'service uninstall',
  usage: 'desktop-assistant service uninstall',
  summary: 'remove the unit `service install` wrote (and its enable link); a unit that is not ours is left',
  async run(argv, io) {
    parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } } });
    const file = join(userUnitDir(io.env), UNIT_NAME);
    const existing = readIfThere(file);
    if (existing === undefined) {
      io.stdout.write(`no unit at ${file}: nothing to remove\n`);
      return 0;
    }
    if (!isOurUnit(existing)) {
      io.stderr.write(`desktop-assistant: ${file} was not written by \`desktop-assistant service install\`: left as it is\n`);
      return 1;
    }
    rmSync(file);
    const unlinked = removeEnableLink(file);
    io.stdout.write(`removed ${file}${unlinked ? ` and ${unlinked}` : ''}\n${nextCommands([`stop ${SERVICE}`, 'daemon-reload'], false)}`);
    return 0;
  },
};

export const SERVICE_COMMANDS = [serviceInstallCommand, serviceUninstallCommand];

/**
 * What `systemctl --user disable` would remove: the link `enable` made in
 * default.target.wants, when it points at our unit. Left, it would dangle.
 */
function removeEnableLink(unit: string): string | undefined {
  const link = join(dirname(unit), 'default.target.wants', UNIT_NAME);
  try {
    if (!lstatSync(link).isSymbolicLink() || resolve(dirname(link), readlinkSync(link)) !== unit) return undefined;
  } catch {
    return undefined;
  }
  rmSync(link);
  return link;
}

function nextCommands(systemctl: string[], follow: boolean): string {
  const lines = systemctl.map((args) => `  systemctl --user ${args}`);
  if (follow) lines.push(`  journalctl --user -u ${SERVICE} -f`);
  return `next:\n${lines.join('\n')}\n`;
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
