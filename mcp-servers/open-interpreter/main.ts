#!/usr/bin/env node
/**
 * Entry point the host spawns when the adapter is enabled:
 * `node dist/mcp-servers/open-interpreter/main.js [--config-dir DIR]`.
 */
import { runServerMain } from '../shared/server-main.js';
import { createInterpreterServer } from './server.js';
import { interpreterSettings } from './settings.js';

runServerMain(async (config, configDir) => ({ server: createInterpreterServer(interpreterSettings(config, configDir)) }));
