import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpStub } from '../../helpers/http-stub.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { startBrowserServer, type BrowserServerHandle } from './harness.js';
import { hits, html, startSite } from './pages.js';

let site: HttpStub;
let dir: TempDir;
let browser: BrowserServerHandle | undefined;

beforeEach(async () => {
  site = await startSite({ '/page': html('<title>Page</title>') });
  dir = await makeTempDir('da-browser-missing-');
});

afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await site.close();
  await dir.remove();
});

describe('a browser server without a working Chromium', () => {
  it('still lists its tools, and each call answers BROWSER_UNAVAILABLE naming the path', async () => {
    browser = await startBrowserServer({ chromium: '/nonexistent/chromium' });
    const { tools } = await browser.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['browser.read_page', 'browser.extract']);

    for (const [tool, args] of [
      ['browser.read_page', { url: `${site.url}/page` }],
      ['browser.extract', { url: `${site.url}/page`, selector: 'title' }],
      ['browser.read_page', { url: `${site.url}/page` }],
    ] as const) {
      const answer = await browser.call(tool, args);
      expect(answer).toMatchObject({ isError: true, code: 'BROWSER_UNAVAILABLE' });
      expect(answer.text).toContain('no Chromium at /nonexistent/chromium (no such file)');
    }
    expect(hits(site, '/page')).toBe(0);
    // The checks that need no browser still answer as usual.
    expect(await browser.call('browser.read_page', { url: 'file:///etc/passwd' })).toMatchObject({ code: 'BROWSER_URL_REFUSED' });
    await expect(browser.client.ping()).resolves.toBeDefined();
  });

  it('says why when the file is there but is not executable', async () => {
    const file = await dir.write('chromium', 'not a program\n', 0o644);
    browser = await startBrowserServer({ chromium: file });
    const answer = await browser.call('browser.read_page', { url: `${site.url}/page` });
    expect(answer).toMatchObject({ isError: true, code: 'BROWSER_UNAVAILABLE' });
    expect(answer.text).toContain(`no Chromium at ${file} (not executable)`);
  });

  it('says why when the program fails to start as a browser', async () => {
    const file = await dir.write('chromium', '#!/bin/sh\necho "chromium: cannot open display" >&2\nexit 1\n', 0o755);
    browser = await startBrowserServer({ chromium: file });
    const answer = await browser.call('browser.read_page', { url: `${site.url}/page` });
    expect(answer).toMatchObject({ isError: true, code: 'BROWSER_UNAVAILABLE' });
    expect(answer.text).toContain(`Chromium at ${file} did not start`);
    await expect(browser.client.listTools()).resolves.toMatchObject({ tools: [{ name: 'browser.read_page' }, { name: 'browser.extract' }] });
  });
});
