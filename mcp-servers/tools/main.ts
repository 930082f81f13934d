#!/usr/bin/env node
/**
 * Entry point the host spawns: `node dist/mcp-servers/tools/main.js
 * [--config-dir DIR] [FILE...]`. The same server as `desktop-assistant tool-server`.
 */
import { parseArgs } from 'node:util';
import { configDir } from '../../src/config/index.js';
import { messageOf } from '../../src/errors/index.js';
import { serveToolsOverStdio } from '../../src/tool-server/index.js';

const { values, positionals } = parseArgs({
  options: { 'config-dir': { type: 'string' } },
  allowPositionals: true,
});

serveToolsOverStdio({
  configDir: configDir(values['config-dir']),
  files: positionals.length > 0 ? positionals : undefined,
}).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${messageOf(error)}\n`);
    process.exit(1);
  },
);
