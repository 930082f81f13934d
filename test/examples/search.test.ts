import { execFile } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusedUrl, sendJson, sendText, startHttpStub, type HttpStub, type StubHandler } from '../helpers/http-stub.js';
import { connectToolsServer, resultText } from '../helpers/mcp-stdio.js';
import { EXAMPLES } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const SEARCH = join(EXAMPLES, 'tools', 'search.mjs');

interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The bundled tool as a child process, with only the environment given here. */
function runSearch(args: string[], env: Record<string, string>): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SEARCH, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 15_000 }, (error, stdout, stderr) => {
      // A numeric code is the exit status; anything else means the tool never ran.
      if (!error) resolve({ code: 0, stdout, stderr });
      else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr });
      else reject(error);
    });
  });
}

const result = (title: string | undefined, content: string | undefined) => ({ url: 'https://example.org/', title, content });

let dir: TempDir;
let stub: HttpStub | undefined;

async function serve(handler: StubHandler): Promise<HttpStub> {
  stub = await startHttpStub(handler);
  return stub;
}

beforeEach(async () => {
  dir = await makeTempDir();
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  await dir.remove();
});

describe('search.mjs', () => {
  it('asks /search with q and format=json and prints the top 5 of 7 results, one line each', async () => {
    const results = [
      result('First\n  result', 'Snippet  one\n\twith   spaces'),
      result('Second', 'two'),
      result(undefined, 'no title here'),
      result('Fourth', undefined),
      result('Fifth', 'five'),
      result('Sixth', 'six'),
      result('Seventh', 'seven'),
    ];
    const server = await serve((_, res) => sendJson(res, 200, { query: 'example', results }));
    const run = await runSearch(['  example query  '], { SEARXNG_URL: server.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(['First result: Snippet one with spaces', 'Second: two', '(no title): no title here', 'Fourth: ', 'Fifth: five', ''].join('\n'));
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'GET', path: '/search' });
    expect(Object.fromEntries(request!.query)).toEqual({ q: 'example query', format: 'json' });
    expect(request!.headers.accept).toBe('application/json');
  });

  it.each([
    ['without', '/searx'],
    ['with', '/searx/'],
  ])('keeps the path of a SEARXNG_URL %s a trailing slash', async (_, base) => {
    const server = await serve((_req, res) => sendJson(res, 200, { results: [result('Only', 'one')] }));
    const run = await runSearch(['example'], { SEARXNG_URL: `${server.url}${base}` });
    expect(run.stdout).toBe('Only: one\n');
    expect(server.requests.map((r) => r.path)).toEqual(['/searx/search']);
  });

  it.each([
    ['an empty list', { results: [] }],
    ['no results key', { query: 'example' }],
  ])('says "no results" for %s', async (_, body) => {
    const server = await serve((_req, res) => sendJson(res, 200, body));
    const run = await runSearch(['example'], { SEARXNG_URL: server.url });
    expect(run).toEqual({ code: 0, stdout: 'no results\n', stderr: '' });
  });

  it('sends a query with shell characters and quotes as one q value', async () => {
    const query = `it's "quoted"; rm -rf ~ && echo $HOME`;
    const server = await serve((_req, res) => sendJson(res, 200, { results: [] }));
    const run = await runSearch([query], { SEARXNG_URL: server.url });
    expect(run.code).toBe(0);
    expect(server.requests[0]!.query.getAll('q')).toEqual([query]);
    expect(server.requests[0]!.query.getAll('format')).toEqual(['json']);
  });

  it.each([
    ['SEARXNG_URL is not set', false, ['example'], 'SEARXNG_URL is not set (config.toml [env])'],
    ['the query is blank', true, ['   '], 'empty query'],
    ['there is no query argument', true, [], 'empty query'],
  ])('fails without a request when %s', async (_, setUrl, args, message) => {
    const server = await serve((_req, res) => sendJson(res, 200, { results: [] }));
    const run = await runSearch(args, setUrl ? { SEARXNG_URL: server.url } : {});
    expect(run).toEqual({ code: 1, stdout: '', stderr: `${message}\n` });
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, StubHandler, string]>([
    ['HTTP 403 as the json format being disabled', (_, res) => sendText(res, 403, 'Forbidden'), 'search refused (HTTP 403): enable the json format in the SearXNG settings'],
    ['another HTTP status', (_, res) => sendText(res, 502, 'Bad Gateway'), 'search failed: HTTP 502'],
    ['an answer that is not JSON', (_, res) => sendText(res, 200, '<html>results</html>'), 'search failed: the answer is not JSON'],
  ])('reports %s', async (_, handler, message) => {
    const server = await serve(handler);
    const run = await runSearch(['example'], { SEARXNG_URL: server.url });
    expect(run).toEqual({ code: 1, stdout: '', stderr: `${message}\n` });
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused connection', async () => {
    const run = await runSearch(['example'], { SEARXNG_URL: await refusedUrl() });
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'search failed: ECONNREFUSED\n' });
  });
});

describe('search tool through the tools MCP server', () => {
  async function callSearch(server: HttpStub, query: string) {
    await cp(join(EXAMPLES, 'tools'), join(dir.path, 'tools'), { recursive: true });
    await dir.write('config.toml', `[env]\nSEARXNG_URL = ${JSON.stringify(server.url)}\n`);
    const tools = await connectToolsServer(dir.path);
    try {
      return await tools.client.callTool({ name: 'search', arguments: { query } });
    } finally {
      await tools.close();
    }
  }

  it('returns the results and passes a hostile query through as one q value', async () => {
    const query = `"Exampleville" town hall'; rm -rf ~`;
    const server = await serve((_, res) => sendJson(res, 200, { results: [result('Exampleville', 'A town on example.org.')] }));
    const called = await callSearch(server, query);
    expect(called.isError).toBe(false);
    expect(resultText(called)).toBe('Exampleville: A town on example.org.');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.query.getAll('q')).toEqual([query]);
  });

  it('turns a failure into an error result with the last stderr line', async () => {
    const server = await serve((_, res) => sendText(res, 403, 'Forbidden'));
    const called = await callSearch(server, 'example');
    expect(called.isError).toBe(true);
    expect(resultText(called)).toBe('error: search refused (HTTP 403): enable the json format in the SearXNG settings');
  });
});
