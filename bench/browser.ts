import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../src/errors/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { distribution, elapsedMs, now, p50, round, timeMs } from '../test/support/stats.js';

/** Fresh server processes, each timed on its first call (Chromium's launch included). */
const COLD_RUNS = 5;
const WARM_CALLS = 50;
/** Discarded warm calls: the renderer's code and the page's resources settle. */
const WARMUP_CALLS = 5;
const CALL_TIMEOUT_MS = 60_000;
/** Idle time before a `spaced` call, as between the turns of a conversation: the server opens the next context meanwhile. */
const PAUSE_MS = 500;
const TITLE = 'Harbour news';

/** Compiled layout: dist/bench/browser.js next to dist/mcp-servers/browser/main.js. */
const BROWSER_SERVER = fileURLToPath(new URL('../mcp-servers/browser/main.js', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * `browser.read_page` of a local page through the browser MCP server: cold
 * (a fresh server process, whose first call launches Chromium) and warm
 * (Chromium already running: a fresh context and page per call), plus the
 * server's own start (spawn and MCP initialize, no browser yet). Warm calls
 * come in rounds of three: `warm` (right after the previous call), `static`
 * (the same page without its script, right after), and `spaced` (after
 * PAUSE_MS of idle time).
 */
export const browser: Benchmark = {
  name: 'browser',
  description: `browser.read_page of a loopback page: ${COLD_RUNS} cold calls (fresh server, Chromium launch) and ${WARM_CALLS} rounds of warm calls`,
  run: runBrowser,
};

async function runBrowser(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const { signal } = options;
  await access(BROWSER_SERVER).catch((cause: unknown) => {
    throw new AppError('BENCH_NOT_BUILT', `no compiled browser server at ${BROWSER_SERVER}; run \`npm run build\` first`, { cause });
  });
  const configDir = await mkdtemp(join(tmpdir(), 'bench-browser-'));
  const site = await startSite();
  try {
    await writeFile(join(configDir, 'config.toml'), `[adapters.browser]\nchromium = ${JSON.stringify(CHROMIUM)}\ntimeout = 30\n`);
    const url = `${site.url}/news.html`;
    const staticUrl = `${site.url}/static.html`;
    const starts: number[] = [];
    const cold: number[] = [];
    const closes: number[] = [];

    for (let i = 0; i < COLD_RUNS; i++) {
      signal?.throwIfAborted();
      const server = await connect(configDir, signal);
      starts.push(server.startMs);
      try {
        cold.push(await timeMs(() => readPage(server.client, url)));
      } finally {
        closes.push(await timeMs(() => server.client.close()));
      }
      process.stderr.write(`browser: cold ${i + 1}/${COLD_RUNS}: start ${server.startMs.toFixed(0)} ms, call ${(cold.at(-1) ?? 0).toFixed(0)} ms\n`);
    }

    const server = await connect(configDir, signal);
    starts.push(server.startMs);
    const warm: number[] = [];
    const staticPage: number[] = [];
    const spaced: number[] = [];
    try {
      for (let i = 0; i < 1 + WARMUP_CALLS; i++) await readPage(server.client, i % 2 === 0 ? url : staticUrl);
      const measuring = now();
      for (let i = 0; i < WARM_CALLS; i++) {
        signal?.throwIfAborted();
        warm.push(await timeMs(() => readPage(server.client, url)));
        staticPage.push(await timeMs(() => readPage(server.client, staticUrl)));
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
        spaced.push(await timeMs(() => readPage(server.client, url)));
        if ((i + 1) % 10 === 0) process.stderr.write(`browser: ${i + 1}/${WARM_CALLS} rounds\n`);
      }
      process.stderr.write(`browser: ${WARM_CALLS} rounds in ${(elapsedMs(measuring) / 1000).toFixed(1)} s\n`);
    } finally {
      // Clean-up after the figures: a server that fails to close changes none of them.
      await server.client.close().catch(() => undefined);
    }

    return {
      cold_runs: COLD_RUNS,
      warm_calls: WARM_CALLS,
      warmup_calls: WARMUP_CALLS,
      pause_ms: PAUSE_MS,
      page_requests: site.requests(),
      ...distribution('server_start', starts),
      ...distribution('cold', cold, true),
      ...distribution('warm', warm, true),
      ...distribution('static', staticPage, true),
      ...distribution('spaced', spaced, true),
      cold_minus_warm_p50_ms: round(p50(cold) - p50(warm)),
      ...distribution('close_after_cold', closes),
    };
  } finally {
    await site.close();
    await rm(configDir, { recursive: true, force: true });
  }
}

async function connect(configDir: string, signal: AbortSignal | undefined): Promise<{ client: Client; startMs: number }> {
  const client = new Client({ name: 'desktop-assistant-bench', version: '0.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BROWSER_SERVER, '--config-dir', configDir],
    env: getDefaultEnvironment(),
    stderr: 'inherit',
  });
  const startMs = await timeMs(() => client.connect(transport, { ...(signal ? { signal } : {}), timeout: CALL_TIMEOUT_MS }));
  return { client, startMs };
}

async function readPage(client: Client, url: string): Promise<void> {
  // No signal per call: the SDK adds an abort listener per request and never
  // removes it (see tool-call.ts); the run's signal is checked between calls.
  const result = (await client.callTool({ name: 'browser.read_page', arguments: { url } }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  // An error result (no Chromium, a timeout) is not a page read: refuse to time it.
  if (result.isError || !text.startsWith(`Title: ${TITLE}`)) throw new AppError('BENCH_TOOL_FAILED', `read_page did not read the page: ${text.slice(0, 300)}`);
}

/**
 * A page of the size and shape of a short news article: a header with
 * navigation, about 2.5 KB of text, 22 links, a stylesheet, and (`script`) a
 * script that adds a line after DOMContentLoaded, as most pages have.
 */
function newsPage(script: boolean): string {
  const paragraphs = Array.from({ length: 12 }, (_, i) => `<p>Paragraph ${i + 1}: the ferry timetable changes next week, and the harbour office has published the new departures, the fares and the parking rules for the summer season.</p>`);
  const links = Array.from({ length: 20 }, (_, i) => `<li><a href="/story/${i + 1}.html">Story ${i + 1}</a></li>`);
  return `<!doctype html><html><head><meta charset="utf-8"><title>${TITLE}</title><link rel="stylesheet" href="/site.css"></head>
<body><header><nav><a href="/">Home</a> <a href="/weather.html">Weather</a></nav></header>
<main><h1>New ferry timetable</h1>${paragraphs.join('\n')}<ul>${links.join('')}</ul><p id="updated"></p></main>
${script ? `<script>document.addEventListener('DOMContentLoaded', () => { document.getElementById('updated').textContent = 'Updated today'; });</script>` : ''}
</body></html>`;
}

async function startSite(): Promise<{ url: string; requests(): number; close(): Promise<void> }> {
  const pages: Record<string, string> = { '/news.html': newsPage(true), '/static.html': newsPage(false) };
  let requests = 0;
  const server: HttpServer = createServer((req, res) => {
    requests += 1;
    const page = pages[req.url ?? ''];
    if (page !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    } else if (req.url === '/site.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end('body { font-family: sans-serif; max-width: 40em; }');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  // Loopback only.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
