import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { ChromiumLauncher } from './chromium.js';
import { isWebUrl } from './url-policy.js';

/**
 * A fresh incognito context per call: no cookies, storage or cache carried
 * from one call to the next. Downloads are refused by the browser, service
 * workers cannot install, and no permission is granted.
 */
const CONTEXT_OPTIONS: BrowserContextOptions = {
  acceptDownloads: false,
  serviceWorkers: 'block',
  permissions: [],
  javaScriptEnabled: true,
  viewport: { width: 1280, height: 900 },
};

/** A context and its one page, guarded, that no call has used yet. */
export interface FreshPage {
  context: BrowserContext;
  page: Page;
}

/**
 * Hands each call a context no call has used. Opening one (context, page,
 * renderer) is about a third of a warm call, so once a call ends the next
 * call's context is opened ahead of time; it sits unused, with no page
 * loaded, until a call takes it.
 */
export class FreshPages {
  private spare: Promise<FreshPage> | undefined;
  private closed = false;

  constructor(private readonly launcher: ChromiumLauncher) {}

  /** The spare context when it is ready or on its way (and its browser still runs), else a new one. */
  async take(): Promise<FreshPage> {
    const spare = this.spare;
    this.spare = undefined;
    // A spare that failed to open, or whose browser went, is thrown away for a new context.
    const ready = await spare?.catch(() => undefined);
    if (ready && ready.context.browser()?.isConnected() === true && !ready.page.isClosed()) return ready;
    await ready?.context.close().catch(() => undefined);
    return open(await this.launcher.browser());
  }

  /** Opens the next call's context, if a browser already runs: a spare never launches one. */
  refill(): void {
    const running = this.launcher.running();
    if (this.closed || this.spare || !running) return;
    const spare = running.then(open);
    this.spare = spare;
    spare.catch(() => {
      if (this.spare === spare) this.spare = undefined;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const spare = this.spare;
    this.spare = undefined;
    // Closing: a spare that failed to open leaves nothing to close, and one that fails to close goes with the browser.
    const ready = await spare?.catch(() => undefined);
    await ready?.context.close().catch(() => undefined);
  }
}

async function open(browser: Browser): Promise<FreshPage> {
  const context = await browser.newContext(CONTEXT_OPTIONS);
  try {
    // Chromium itself never sends file:, data: and the like through here; this
    // refuses anything but http(s) that does come, should a version start to.
    await context.route('**/*', (route) => (isWebUrl(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
    // WebSockets (ws:, wss:) reach no server: each is answered here, by closing it.
    await context.routeWebSocket(/.*/, (socket) => socket.close({ code: 1008, reason: 'WebSockets are not allowed here' }));
    return { context, page: await context.newPage() };
  } catch (error) {
    // `error` is the one to report; the half-made context is only cleared away.
    await context.close().catch(() => undefined);
    throw error;
  }
}
