import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { AppError, isAppError, messageOf } from '../../src/errors/index.js';
import type { FreshPages } from './fresh-pages.js';
import { domQuiet } from './page-content.js';
import type { BrowserSettings } from './settings.js';
import { isWebUrl } from './url-policy.js';

/** After DOMContentLoaded, how long to wait for `load` (images, frames) at most. */
const LOAD_WAIT_MS = 5_000;
/** Script-rendered content counts as there once the DOM has been still this long. */
const DOM_QUIET_MS = 250;
/** The most the call waits for a page to settle (a live clock never does). */
const SETTLE_MAX_MS = 3_000;

export interface PageVisit {
  page: Page;
  /** The main document's response; null for about:blank. */
  response: Response | null;
  /** Milliseconds left of the call's time. */
  remainingMs(): number;
}

/**
 * Opens `url` in a fresh context and hands the settled page to `read`,
 * under the call's limits: the total time (launch included), the number of
 * main-frame navigations (redirects included), http(s) only for every
 * request, and the caller's signal. The first limit hit ends the call with
 * its code; the context (and so the page and its connections) is closed
 * whatever happens.
 */
export async function visitPage<T>(
  pages: FreshPages,
  settings: BrowserSettings,
  target: { url: string; signal?: AbortSignal; beforeNavigation?: (page: Page) => Promise<void> },
  read: (visit: PageVisit) => Promise<T>,
): Promise<T> {
  const startedAt = performance.now();
  const remainingMs = (): number => Math.max(0, settings.callTimeoutMs - (performance.now() - startedAt));
  // The first reason to stop wins: AbortController ignores later aborts.
  const stop = new AbortController();
  const timer = setTimeout(
    () => stop.abort(new AppError('BROWSER_TIMEOUT', `the page took longer than the call's limit of ${settings.callTimeoutMs / 1000} s`, { retryable: true })),
    settings.callTimeoutMs,
  );
  const onCancel = (): void => stop.abort(new AppError('BROWSER_CANCELLED', 'the call was cancelled'));
  target.signal?.addEventListener('abort', onCancel, { once: true });
  if (target.signal?.aborted) onCancel();
  const scope = new ContextScope();

  const work = async (): Promise<T> => {
    const fresh = await pages.take();
    const context = await scope.adopt(fresh.context);
    const page = fresh.page;
    // Popups (window.open, target=_blank) are not followed: the call reads one page.
    context.on('page', (other) => {
      // A popup that will not close is left to the context, which the call closes at its end.
      if (other !== page) void other.close().catch(() => undefined);
    });
    page.setDefaultTimeout(settings.callTimeoutMs);
    const network = watchPage(page, settings.maxNavigations, (reason) => stop.abort(reason));
    await target.beforeNavigation?.(page);
    const response = await page.goto(target.url, { waitUntil: 'domcontentloaded', timeout: remainingMs() });
    await settle(page, network, remainingMs);
    return read({ page, response, remainingMs });
  };

  try {
    stop.signal.throwIfAborted();
    return await raceAbort(work(), stop.signal);
  } catch (error) {
    throw classify(error);
  } finally {
    clearTimeout(timer);
    target.signal?.removeEventListener('abort', onCancel);
    await scope.end();
    pages.refill();
  }
}

/** Closes the call's context at the end, even one that arrives after the call has already ended. */
class ContextScope {
  private context: BrowserContext | undefined;
  private ended = false;

  async adopt(context: BrowserContext): Promise<BrowserContext> {
    if (this.ended) {
      // Thrown away unused: the cancellation below is what the call reports.
      await context.close().catch(() => undefined);
      throw new AppError('BROWSER_CANCELLED', 'the call ended before the page opened');
    }
    this.context = context;
    return context;
  }

  async end(): Promise<void> {
    this.ended = true;
    // The call is over: a context that fails to close goes with its browser.
    await this.context?.close().catch(() => undefined);
  }
}

interface NetworkWatch {
  inFlight(): number;
  /** Resolves when no request is in flight, or after `maxMs`. */
  idle(maxMs: number): Promise<void>;
}

/**
 * Counts main-frame navigations (each redirect hop is a request of its own)
 * and requests in flight. Past `maxNavigations`, or a navigation to anything
 * but http(s), stops the call; closing the context then cancels the request,
 * though one hop may already have reached the server.
 */
function watchPage(page: Page, maxNavigations: number, stop: (reason: AppError) => void): NetworkWatch {
  let navigations = 0;
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  const finished = (): void => {
    inFlight = Math.max(0, inFlight - 1);
    if (inFlight > 0) return;
    for (const wake of waiters) wake();
    waiters = [];
  };
  page.on('request', (request) => {
    inFlight += 1;
    if (!request.isNavigationRequest() || !inMainFrame(page, request)) return;
    navigations += 1;
    if (!isWebUrl(request.url())) {
      stop(new AppError('BROWSER_URL_REFUSED', `the page navigated to a refused URL (${schemeOf(request.url())}); only http and https pages can be read`));
    } else if (navigations > maxNavigations) {
      stop(new AppError('BROWSER_TOO_MANY_NAVIGATIONS', `more than ${maxNavigations} navigations (redirects included) for one call`));
    }
  });
  page.on('requestfinished', finished);
  page.on('requestfailed', finished);
  return {
    inFlight: () => inFlight,
    idle: (maxMs) =>
      new Promise<void>((resolve) => {
        if (inFlight === 0) return resolve();
        const timer = setTimeout(resolve, maxMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/**
 * Waits for `load` (capped), then until the DOM is still and no request is in
 * flight, so that what a script fetches and renders after the load is read
 * too. A script navigation meanwhile (location.href = ...) is followed.
 */
async function settle(page: Page, network: NetworkWatch, remainingMs: () => number): Promise<void> {
  // Capped, not required: a page still loading is read as it is (the DOM and network waits below).
  await page.waitForLoadState('load', { timeout: Math.min(remainingMs(), LOAD_WAIT_MS) }).catch(() => undefined);
  const until = performance.now() + Math.min(remainingMs(), SETTLE_MAX_MS);
  const left = (): number => Math.max(0, until - performance.now());
  for (;;) {
    try {
      await page.evaluate(domQuiet, { quietMs: DOM_QUIET_MS, maxMs: left() });
    } catch (error) {
      if (!/Execution context was destroyed|navigat/i.test(messageOf(error))) throw error;
      if (left() === 0) return;
      // The next evaluate finds out whether the new page is there.
      await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, left()) }).catch(() => undefined);
      continue;
    }
    if (network.inFlight() === 0 || left() === 0) return;
    await network.idle(left());
  }
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // Once the call has ended, the work fails against a closed context: nobody waits for it.
  work.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Playwright's errors as the server's codes. */
function classify(error: unknown): AppError {
  if (isAppError(error)) return error;
  const message = messageOf(error);
  const first = message.split('\n')[0] ?? message;
  if (/Download is starting/i.test(message)) {
    return new AppError('BROWSER_DOWNLOAD_REFUSED', 'the URL starts a download, and this browser downloads nothing', { cause: error });
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new AppError('BROWSER_TIMEOUT', `the page did not load in time: ${first}`, { cause: error, retryable: true });
  }
  const net = /net::(ERR_[A-Z_]+)/.exec(message);
  if (net?.[1] === 'ERR_UNSAFE_REDIRECT') {
    return new AppError('BROWSER_URL_REFUSED', 'the page redirected to a URL the browser refuses (ERR_UNSAFE_REDIRECT); only http and https pages can be read', { cause: error });
  }
  if (net) return new AppError('BROWSER_NAVIGATION_FAILED', `the page could not be loaded (${net[1]})`, { cause: error, retryable: true });
  return new AppError('BROWSER_FAILED', `the browser failed: ${first}`, { cause: error });
}

function inMainFrame(page: Page, request: Request): boolean {
  try {
    return request.frame() === page.mainFrame();
  } catch {
    // A service worker's request has no frame (and service workers are blocked anyway).
    return false;
  }
}

function schemeOf(url: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? 'not a URL';
}
