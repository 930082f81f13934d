import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'smol-toml';
import { asWritten, configDir, readConfig, type Config } from '../../../config/index.js';
import { loadToolDir } from '../../../tool-files/index.js';
import type { CliCommand } from '../command.js';

const SECRET_NAME = /key|token|secret|passw|auth|credential|cookie/i;

export const configCheckCommand: CliCommand = {
  name: 'config check',
  usage: 'desktop-assistant config check [--config-dir DIR]',
  summary: 'print the effective configuration and tools, or every error (exit 1)',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } } });
    const dir = configDir(values['config-dir'], io.env);
    const toolsDir = join(dir, 'tools');
    const [config, tools] = await Promise.all([readConfig(dir), loadToolDir(toolsDir)]);
    const errors = [...(config.ok ? [] : config.errors), ...tools.errors];
    if (errors.length > 0) {
      for (const error of errors) io.stderr.write(`${error}\n`);
      io.stderr.write(`${errors.length} error${errors.length === 1 ? '' : 's'} in ${dir}\n`);
      return 1;
    }
    if (!config.ok) return 1;
    io.stdout.write(`# ${config.path}${config.found ? '' : ' (not found: built-in defaults)'}\n`);
    // As the file would say it: durations in seconds.
    io.stdout.write(stringify(asWritten(withSecretsHidden(config.config)) as Record<string, unknown>));
    io.stdout.write(`\n# tools in ${toolsDir}: ${tools.tools.length}\n`);
    for (const tool of tools.tools) {
      io.stdout.write(`# ${tool.name} (${tool.risk}, timeout ${tool.timeout.seconds} s): ${JSON.stringify(tool.command)}\n`);
    }
    return 0;
  },
};

/** `[env]` values whose names suggest a secret are not printed. */
function withSecretsHidden(config: Config): Config {
  const env = Object.fromEntries(
    Object.entries(config.env).map(([name, value]) => [name, SECRET_NAME.test(name) ? '<hidden>' : value]),
  );
  return { ...config, env };
}
