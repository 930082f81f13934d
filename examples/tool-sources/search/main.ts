/**
 * search.mjs QUERY: the top 5 results of a SearXNG instance (SEARXNG_URL,
 * with the JSON format enabled in its settings) as `title: snippet` lines.
 */
import { fetchFailure } from '../shared/fetch-failure.js';

const TIMEOUT_MS = 8000;
const RESULTS = 5;

interface SearxResults {
  results?: { title?: string; content?: string }[];
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function search(base: string, query: string): Promise<string> {
  const url = new URL('search', base.endsWith('/') ? base : `${base}/`);
  url.search = new URLSearchParams({ q: query, format: 'json' }).toString();
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
  } catch (error) {
    fail(`search failed: ${fetchFailure(error)}`);
  }
  if (response.status === 403) fail('search refused (HTTP 403): enable the json format in the SearXNG settings');
  if (!response.ok) fail(`search failed: HTTP ${response.status}`);
  let body: SearxResults;
  try {
    body = (await response.json()) as SearxResults;
  } catch {
    fail('search failed: the answer is not JSON');
  }
  const lines = (body.results ?? []).slice(0, RESULTS).map((r) => `${oneLine(r.title) || '(no title)'}: ${oneLine(r.content)}`);
  return lines.length > 0 ? lines.join('\n') : 'no results';
}

function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

const base = process.env.SEARXNG_URL;
const query = (process.argv[2] ?? '').trim();
if (!base) fail('SEARXNG_URL is not set (config.toml [env])');
if (!query) fail('empty query');
process.stdout.write(`${await search(base, query)}\n`);
