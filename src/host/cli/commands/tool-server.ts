import { parseArgs } from 'node:util';
import { configDir } from '../../../config/index.js';
import type { CliCommand } from '../command.js';

export const toolServerCommand: CliCommand = {
  name: 'tool-server',
  usage: 'desktop-assistant tool-server [--config-dir DIR] [FILE...]',
  summary: 'serve tool files as a stdio MCP server (all of DIR/tools, or the files named)',
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { 'config-dir': { type: 'string' } },
      allowPositionals: true,
    });
    // Loaded here, not at the top: other commands should not pay for the MCP SDK.
    const { serveToolsOverStdio } = await import('../../../tool-server/index.js');
    await serveToolsOverStdio({
      configDir: configDir(values['config-dir'], io.env),
      files: positionals.length > 0 ? positionals : undefined,
    });
    return 0;
  },
};
