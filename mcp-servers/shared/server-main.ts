import { parseArgs } from 'node:util';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { configDir, loadConfig, type Config } from '../../src/config/index.js';
import { messageOf } from '../../src/errors/index.js';
import { serveOverStdio } from '../../src/mcp-stdio/index.js';

/**
 * The entry of a built-in server: `node main.js [--config-dir DIR]`. Reads
 * config.toml (a bad one stops the server with the errors), builds the
 * server and serves it over stdio; exit 0 when the client closes stdin.
 */
export function runServerMain(build: (config: Config, configDir: string) => Promise<{ server: Server; close?: () => Promise<void> }>): void {
  const { values } = parseArgs({ options: { 'config-dir': { type: 'string' } }, allowPositionals: false });
  const dir = configDir(values['config-dir']);
  loadConfig(dir)
    .then((config) => build(config, dir))
    .then(({ server, close }) => serveOverStdio(server, close))
    .then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${messageOf(error)}\n`);
        process.exit(1);
      },
    );
}
