import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../mcp-servers/browser/chromium.js';

/**
 * Debian's Chromium (package `chromium`, installed by scripts/setup.sh from
 * scripts/debian-packages.txt). Playwright's own browser download cannot run
 * on these machines, so the system build is driven through playwright-core.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The same flags the browser adapter launches with. */
export { CHROMIUM_ARGS };

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissingReason(): string | undefined {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${CHROMIUM_PATH}: install Debian's chromium (scripts/setup.sh does) or set CHROMIUM_PATH`;
  }
}

/** For `it.skipIf(!chromiumAvailable())`. */
export function chromiumAvailable(): boolean {
  return chromiumMissingReason() === undefined;
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Closes the browser; safe to call twice. */
  close(): Promise<void>;
}

/**
 * Launches headless Chromium. Playwright gives `launch()` a fresh temporary
 * profile (user data dir) of its own and removes it on close, so runs share
 * no cookies or local storage.
 */
export async function launchChromium(options: { timeoutMs?: number } = {}): Promise<LaunchedBrowser> {
  const missing = chromiumMissingReason();
  if (missing) throw new Error(missing);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: options.timeoutMs ?? 30_000,
  });
  let closing: Promise<void> | undefined;
  return {
    browser,
    // Clean-up after a test: a browser that fails to close changes no result.
    close: () => (closing ??= browser.close().catch(() => undefined)),
  };
}
