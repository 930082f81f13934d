import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../../helpers/browser.js';
import type { HttpStub } from '../../helpers/http-stub.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startBrowserServer, type BrowserServerHandle } from './harness.js';
import { hits, html, startSite } from './pages.js';

/** In every byte the site would have the browser save: no file may ever contain it. */
const MARKER = 'da-download-marker-7f3c2a';
const SLOW_ASSET_MS = 2000;

let sandbox: TempDir;
let site: HttpStub;
let browser: BrowserServerHandle | undefined;
const home = (): string => join(sandbox.path, 'home');
const cwd = (): string => join(sandbox.path, 'work');

beforeAll(async () => {
  sandbox = await makeTempDir('da-browser-downloads-');
  for (const dir of [home(), cwd(), join(sandbox.path, 'tmp')]) await mkdir(dir);
  site = await startSite({
    '/report.pdf': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="report.pdf"' });
      response.end(`%PDF-1.4 ${MARKER}\n`);
    },
    '/auto-download': html(
      `<title>Reports</title><main>Quarterly reports</main><a id="d" href="/report.pdf" download>Report</a>
       <script>document.getElementById('d').click();</script><img src="/slow.png">`,
    ),
    // Holds the page open (the call waits for its load) while the test looks for a saved file.
    '/slow.png': (_request, response) => {
      setTimeout(() => {
        response.writeHead(404);
        response.end();
      }, SLOW_ASSET_MS);
    },
    '/blob-download': html(
      `<title>Generated</title><main>A generated file</main>
       <script>
         const a = document.createElement('a');
         a.href = URL.createObjectURL(new Blob(['${MARKER}'], { type: 'text/plain' }));
         a.download = 'generated.txt';
         document.body.append(a);
         a.click();
       </script>`,
    ),
  });
  // Everywhere Chromium could put a file points into the sandbox.
  const env = { HOME: home(), TMPDIR: join(sandbox.path, 'tmp'), XDG_DOWNLOAD_DIR: join(home(), 'Downloads') };
  browser = await startBrowserServer({ timeout: 15 }, { env, cwd: cwd() });
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await sandbox?.remove();
});

/** Files under `dir` whose bytes contain MARKER. */
async function filesWithMarker(dir: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    // Chromium's profile changes under the scan: a file may be gone already.
    const bytes = await readFile(path).catch(() => undefined);
    if (bytes?.includes(MARKER)) found.push(path);
  }
  return found;
}

describe.skipIf(!chromiumAvailable())('downloads', () => {
  it('refuses a URL that is a download', async () => {
    const answer = await browser!.call('browser.read_page', { url: `${site.url}/report.pdf` });
    expect(answer).toMatchObject({ isError: true, code: 'BROWSER_DOWNLOAD_REFUSED' });
  });

  it('reads a page whose script starts downloads, and saves nothing', async () => {
    const before = hits(site, '/report.pdf');
    const pending = browser!.call('browser.read_page', { url: `${site.url}/auto-download` });
    // While the page is still open: a download the browser accepted would be on disk by now
    // (Playwright keeps accepted ones in TMPDIR until the context closes).
    await waitFor(() => (hits(site, '/report.pdf') > before ? true : undefined), 'the page to ask for the file');
    // Proving no file appears: no event to wait on; 500 ms for a few bytes to reach the disk, well within SLOW_ASSET_MS.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await filesWithMarker(sandbox.path)).toEqual([]);
    const auto = await pending;
    expect(auto.isError).toBe(false);
    expect(auto.text).toContain('Quarterly reports');
    const blob = await browser!.call('browser.read_page', { url: `${site.url}/blob-download` });
    expect(blob.isError).toBe(false);
    expect(blob.text).toContain('A generated file');
  });

  it('leaves no downloaded file in the working folder, the download folder or anywhere in the sandbox', async () => {
    expect(await filesWithMarker(sandbox.path)).toEqual([]);
    await browser!.close();
    browser = undefined;
    expect(await readdir(cwd())).toEqual([]);
    expect(await readdir(join(home(), 'Downloads')).catch(() => [])).toEqual([]);
    expect(await filesWithMarker(sandbox.path)).toEqual([]);
  });
});
