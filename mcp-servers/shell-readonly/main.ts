#!/usr/bin/env node
/**
 * Entry point the host spawns: `node dist/mcp-servers/shell-readonly/main.js
 * [--config-dir DIR]`. Serves the shell.readonly tool over stdio.
 */
import { runServerMain } from '../shared/server-main.js';
import { createShellReadonlyServer, settingsFromConfig } from './server.js';

runServerMain(async (config) => ({ server: await createShellReadonlyServer(settingsFromConfig(config)) }));
