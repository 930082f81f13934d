import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../../helpers/browser.js';
import type { HttpStub } from '../../helpers/http-stub.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startBrowserServer, type BrowserServerHandle } from './harness.js';
import { hits, html, redirect, startSite, type PageRoute } from './pages.js';

const MAX_NAVIGATIONS = 3;
const CHAIN = 20;
const HOP_DELAY_MS = 50;
const TIMEOUT_S = 3;

/** Responses the site holds open without answering, and whether the browser has hung up on each. */
const held: { path: string; closed: boolean }[] = [];
const hang: PageRoute = (request, response: ServerResponse) => {
  const entry = { path: request.path, closed: false };
  held.push(entry);
  response.on('close', () => {
    entry.closed = true;
  });
};

let site: HttpStub;
let browser: BrowserServerHandle;
let quick: BrowserServerHandle;

beforeAll(async () => {
  const routes: Record<string, PageRoute> = {
    '/ok': html('<title>OK</title><main>fine</main>'),
    '/warm-up': html('<title>Warm</title>'),
    '/slow': hang,
    '/cancel-me': hang,
    '/loop': html('<title>Loop</title><script>location.href = "/loop?n=" + Math.random();</script>'),
    '/to-file': html('<title>Stays here</title><main>still on the web</main><script>location.href = "file:///etc/passwd";</script>'),
    '/to-file-redirect': redirect('file:///etc/passwd'),
  };
  for (let i = 0; i < CHAIN; i++) {
    const route = i === CHAIN - 1 ? html('<title>End of the chain</title>') : redirect(`/hop/${i + 1}`);
    // A hop takes a moment, as it does over a real network; on loopback the
    // browser would otherwise follow several more before the close reaches it.
    routes[`/hop/${i}`] = (request, response) => void setTimeout(() => route(request, response), HOP_DELAY_MS);
  }
  site = await startSite(routes);
  browser = await startBrowserServer({ max_navigations: MAX_NAVIGATIONS, timeout: 15 });
  quick = await startBrowserServer({ timeout: TIMEOUT_S });
  // Launch its Chromium now, so that the timeout test spends its seconds on the page.
  await quick.call('browser.read_page', { url: `${site.url}/warm-up` });
});

afterAll(async () => {
  await browser?.close();
  await quick?.close();
  await site?.close();
});

describe('URLs the browser refuses, before any browser starts', () => {
  it.each([
    ['file:///etc/passwd', 'file:'],
    ['javascript:alert(1)', 'javascript:'],
    ['data:text/html,<title>x</title>', 'data:'],
    ['chrome://settings', 'chrome:'],
    ['about:config', 'about:'],
    ['ftp://127.0.0.1/x', 'ftp:'],
  ])('%s is refused with BROWSER_URL_REFUSED', async (url, scheme) => {
    for (const [tool, args] of [['browser.read_page', { url }], ['browser.extract', { url, selector: 'p' }]] as const) {
      const answer = await browser.call(tool, args);
      expect(answer).toMatchObject({ isError: true, code: 'BROWSER_URL_REFUSED' });
      expect(answer.text).toContain(`${scheme} URLs are refused`);
    }
  });

  it('refuses a URL without a scheme and one with credentials', async () => {
    expect(await browser.call('browser.read_page', { url: 'example.org/page' })).toMatchObject({ code: 'BROWSER_URL_REFUSED' });
    const login = await browser.call('browser.read_page', { url: `${site.url.replace('//', '//user:secret@')}/ok` });
    expect(login).toMatchObject({ code: 'BROWSER_URL_REFUSED' });
    expect(hits(site, '/ok')).toBe(0);
  });

  it('answers bad arguments with an error result, and the server carries on', async () => {
    expect(await browser.call('browser.read_page', {})).toMatchObject({ code: 'BROWSER_BAD_ARGUMENTS' });
    expect(await browser.call('browser.read_page', { url: 42 })).toMatchObject({ code: 'BROWSER_BAD_ARGUMENTS' });
    expect(await browser.call('browser.read_page', { url: `${site.url}/ok`, click: '#buy' })).toMatchObject({ code: 'BROWSER_BAD_ARGUMENTS' });
    expect(await browser.call('browser.read_page', ['x'])).toMatchObject({ code: 'BROWSER_BAD_ARGUMENTS' });
    expect(await browser.call('browser.extract', { url: `${site.url}/ok`, selector: 'p', limit: 0 })).toMatchObject({ code: 'BROWSER_BAD_ARGUMENTS' });
    expect(await browser.call('browser.fill_form', { url: `${site.url}/ok` })).toMatchObject({ code: 'BROWSER_UNKNOWN_TOOL' });
    expect(hits(site, '/ok')).toBe(0);
  });
});

describe.skipIf(!chromiumAvailable())('limits of a call', () => {
  it('follows a redirect chain within max_navigations', async () => {
    const start = CHAIN - MAX_NAVIGATIONS;
    const answer = await browser.call('browser.read_page', { url: `${site.url}/hop/${start}` });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('Title: End of the chain');
    expect(answer.text).toContain(`URL: ${site.url}/hop/${CHAIN - 1}`);
  });

  it('stops a redirect chain past max_navigations', async () => {
    const before = hits(site, /^\/hop\//);
    const endBefore = hits(site, `/hop/${CHAIN - 1}`);
    const answer = await browser.call('browser.read_page', { url: `${site.url}/hop/0` });
    expect(answer).toMatchObject({ isError: true, code: 'BROWSER_TOO_MANY_NAVIGATIONS' });
    expect(answer.text).toContain(`more than ${MAX_NAVIGATIONS} navigations`);
    // Closing the page cancels the chain; a hop or two may already be on their way. Proving nothing more comes:
    // no event to wait on, so as long as the CHAIN / 2 hops the assertion allows would take (HOP_DELAY_MS each).
    await new Promise((resolve) => setTimeout(resolve, (CHAIN / 2) * HOP_DELAY_MS));
    const seen = hits(site, /^\/hop\//) - before;
    expect(seen).toBeGreaterThanOrEqual(MAX_NAVIGATIONS);
    expect(seen).toBeLessThan(CHAIN / 2);
    expect(hits(site, `/hop/${CHAIN - 1}`)).toBe(endBefore);
  });

  it('counts script navigations too', async () => {
    const answer = await browser.call('browser.read_page', { url: `${site.url}/loop` });
    expect(answer).toMatchObject({ isError: true, code: 'BROWSER_TOO_MANY_NAVIGATIONS' });
    expect(hits(site, '/loop')).toBeLessThan(10);
  });

  it('never lets a page take the browser to a local file', async () => {
    const scripted = await browser.call('browser.read_page', { url: `${site.url}/to-file` });
    expect(scripted.text).not.toMatch(/root:.*:0:0/);
    if (!scripted.isError) expect(scripted.text).toContain(`URL: ${site.url}/to-file`);

    const redirected = await browser.call('browser.read_page', { url: `${site.url}/to-file-redirect` });
    expect(redirected).toMatchObject({ isError: true, code: 'BROWSER_URL_REFUSED' });
    expect(redirected.text).not.toMatch(/root:.*:0:0/);
  });

  it('ends a slow page at the call timeout and closes its connection', async () => {
    const answer = await quick.call('browser.read_page', { url: `${site.url}/slow` });
    expect(answer).toMatchObject({ isError: true, code: 'BROWSER_TIMEOUT' });
    expect(answer.ms).toBeGreaterThanOrEqual(TIMEOUT_S * 1000 - 50);
    expect(answer.ms).toBeLessThan(TIMEOUT_S * 1000 + 1500);
    const request = held.find((r) => r.path === '/slow');
    expect(request).toBeDefined();
    await waitFor(() => (request?.closed ? true : undefined), 'the browser to hang up on /slow', 2000);
    // The server is still useful afterwards.
    expect((await quick.call('browser.read_page', { url: `${site.url}/ok` })).text).toContain('Title: OK');
  });

  it('closes the page when the client cancels the call', async () => {
    const controller = new AbortController();
    const pending = browser.call('browser.read_page', { url: `${site.url}/cancel-me` }, { signal: controller.signal });
    const request = await waitFor(() => held.find((r) => r.path === '/cancel-me'), 'the page to be requested', 10_000);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => (request.closed ? true : undefined), 'the browser to hang up on /cancel-me', 2000);
  });
});
