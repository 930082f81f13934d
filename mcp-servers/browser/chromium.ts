import { access, constants } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { AppError, messageOf } from '../../src/errors/index.js';

/**
 * Headless, and as root in a container without a sandbox. Without the
 * background-networking flags Chromium keeps trying to reach Google's hosts
 * on its own, which is both traffic the user did not ask for and, on a
 * closed network, a stream of refused connections.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Playwright's own launch limit; the call's timeout usually ends the wait first. */
const LAUNCH_TIMEOUT_MS = 30_000;

/**
 * One Chromium for the server's life: launched on the first call that needs
 * it and reused (warm) by the later ones. A failed launch is not kept, so
 * the next call tries again (the user may install Chromium meanwhile); a
 * browser that crashes or is killed is launched afresh on the next call.
 */
export class ChromiumLauncher {
  private launching: Promise<Browser> | undefined;
  private closed = false;

  constructor(private readonly executablePath: string) {}

  /** The running browser, launched now if needed; rejects with BROWSER_UNAVAILABLE. */
  browser(): Promise<Browser> {
    if (this.closed) return Promise.reject(new AppError('BROWSER_UNAVAILABLE', 'the browser server is shutting down'));
    if (this.launching) return this.launching;
    const launching = this.launch();
    this.launching = launching;
    launching.then(
      (browser) => browser.on('disconnected', () => this.forget(launching)),
      () => this.forget(launching),
    );
    return launching;
  }

  /** The browser if one runs or is starting, without launching one. */
  running(): Promise<Browser> | undefined {
    return this.closed ? undefined : this.launching;
  }

  /** Closes the browser, if one runs or is starting; later calls get BROWSER_UNAVAILABLE. */
  async close(): Promise<void> {
    this.closed = true;
    const launching = this.launching;
    this.launching = undefined;
    // Closing: a launch that failed leaves nothing to close, and the caller that waited on it got the failure.
    const browser = await launching?.catch(() => undefined);
    // Closing anyway: there is nothing else to try with a browser that will not close.
    await browser?.close().catch(() => undefined);
  }

  private forget(launching: Promise<Browser>): void {
    if (this.launching === launching) this.launching = undefined;
  }

  private async launch(): Promise<Browser> {
    const path = this.executablePath;
    try {
      await access(path, constants.X_OK);
    } catch (cause) {
      const why = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not executable';
      throw new AppError('BROWSER_UNAVAILABLE', `no Chromium at ${path} (${why}); install Debian's chromium or set [adapters.browser] chromium`, { cause });
    }
    // Imported here, not at the top: without playwright-core the server still
    // starts and lists its tools, and each call says why it cannot run.
    let chromium: typeof import('playwright-core').chromium;
    try {
      ({ chromium } = await import('playwright-core'));
    } catch (cause) {
      throw new AppError('BROWSER_UNAVAILABLE', `playwright-core cannot be loaded: ${firstLine(messageOf(cause))}`, { cause });
    }
    try {
      const browser = await chromium.launch({
        executablePath: path,
        args: CHROMIUM_ARGS,
        headless: true,
        timeout: LAUNCH_TIMEOUT_MS,
        // Playwright's handlers close Chromium on these signals but leave the
        // process running; main.ts handles them (close, then exit).
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      if (this.closed) {
        // Shutting down: the error below is what the caller gets.
        await browser.close().catch(() => undefined);
        throw new AppError('BROWSER_UNAVAILABLE', 'the browser server is shutting down');
      }
      return browser;
    } catch (cause) {
      if (cause instanceof AppError) throw cause;
      throw new AppError('BROWSER_UNAVAILABLE', `Chromium at ${path} did not start: ${firstLine(messageOf(cause))}`, { cause, retryable: true });
    }
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
