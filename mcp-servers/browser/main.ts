#!/usr/bin/env node
/**
 * Entry point the hub spawns: `node dist/mcp-servers/browser/main.js
 * [--config-dir DIR]`. Reads `[adapters.browser]`; Chromium starts on the
 * first call, not here, so the server lists its tools even without one.
 */
import { constants } from 'node:os';
import { runServerMain } from '../shared/server-main.js';
import { createBrowserServer } from './server.js';
import { browserSettings } from './settings.js';

/** How long a signalled server waits for Chromium to close before it exits anyway. */
const SIGNAL_CLOSE_MS = 2_000;

runServerMain(async (config) => {
  const browser = createBrowserServer(browserSettings(config.adapters.browser));
  // Chromium is launched without Playwright's signal handlers, which would
  // close it but keep this process running: a SIGTERM from the hub (after
  // closing stdin did not stop the server) closes it and exits.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      setTimeout(() => process.exit(128 + constants.signals[signal]), SIGNAL_CLOSE_MS).unref();
      // The process exits whether or not Chromium closed (finally), so a failed close has nobody to tell.
      void browser.close().finally(() => process.exit(128 + constants.signals[signal]));
    });
  }
  return browser;
});
