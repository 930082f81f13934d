import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../../helpers/browser.js';
import type { HttpStub } from '../../helpers/http-stub.js';
import { isRunning } from '../../helpers/process-state.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startBrowserServer, type BrowserServerHandle } from './harness.js';
import { html, startSite } from './pages.js';

/** Direct children of `pid` that still run. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after the last ')' are safe.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && isRunning(Number(name))) children.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

let site: HttpStub;
let browser: BrowserServerHandle | undefined;

beforeEach(async () => {
  site = await startSite({ '/page': html('<title>Page</title><main>here</main>') });
  browser = await startBrowserServer({ timeout: 15 });
});

afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await site.close();
});

describe.skipIf(!chromiumAvailable())('the browser process', () => {
  it('starts on the first call, not with the server, and ends when the server closes', async () => {
    const server = browser!;
    expect(childrenOf(server.pid)).toEqual([]);
    expect((await server.call('browser.read_page', { url: `${site.url}/page` })).text).toContain('Title: Page');
    const chromium = childrenOf(server.pid);
    expect(chromium.length).toBeGreaterThan(0);
    await server.close();
    browser = undefined;
    for (const pid of chromium) await waitFor(() => (isRunning(pid) ? undefined : true), `Chromium (pid ${pid}) to end`, 5000);
  });

  it('closes Chromium and exits on SIGTERM', async () => {
    const server = browser!;
    expect((await server.call('browser.read_page', { url: `${site.url}/page` })).isError).toBe(false);
    const chromium = childrenOf(server.pid);
    expect(chromium.length).toBeGreaterThan(0);
    process.kill(server.pid, 'SIGTERM');
    await waitFor(() => (isRunning(server.pid) ? undefined : true), 'the server to exit', 5000);
    for (const pid of chromium) await waitFor(() => (isRunning(pid) ? undefined : true), `Chromium (pid ${pid}) to end`, 5000);
  });

  it('launches Chromium again after it died', async () => {
    const server = browser!;
    expect((await server.call('browser.read_page', { url: `${site.url}/page` })).isError).toBe(false);
    const first = childrenOf(server.pid);
    expect(first.length).toBeGreaterThan(0);
    for (const pid of first) process.kill(pid, 'SIGKILL');
    for (const pid of first) await waitFor(() => (isRunning(pid) ? undefined : true), `Chromium (pid ${pid}) to die`, 5000);

    const again = await server.call('browser.read_page', { url: `${site.url}/page` });
    expect(again.isError).toBe(false);
    expect(again.text).toContain('here');
    expect(childrenOf(server.pid).some((pid) => !first.includes(pid))).toBe(true);
  });
});
