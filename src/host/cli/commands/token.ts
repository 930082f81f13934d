import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.js';

export const tokenCommand: CliCommand = {
  name: 'token',
  usage: 'desktop-assistant token',
  summary: 'print the HTTP API token (made at the first `run`, readable by you only)',
  async run(argv, io) {
    parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } } });
    const { readToken, tokenPath } = await import('../../http/index.js');
    const path = tokenPath(io.env);
    const token = readToken(path);
    if (!token) {
      io.stderr.write(`desktop-assistant: no token yet at ${path}: it is made when \`desktop-assistant run\` first starts\n`);
      return 1;
    }
    io.stdout.write(`${token}\n`);
    return 0;
  },
};
