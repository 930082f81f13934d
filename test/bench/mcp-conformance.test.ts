import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSummary } from '../support/mcp-conformance-summary.js';
import { startTokenProxy, type TokenProxy } from '../support/mcp-token-proxy.js';

/** The end of a real run's output (0.2.0-alpha.12 against today's /mcp), shortened. */
const OUTPUT = `=== Running scenario: tools-list ===
✗ tools-list: this line is progress, not the summary

=== SUMMARY ===
✗ server-stateless: 5 passed, 26 failed
✓ input-required-result-validate-input: 3 passed, 0 failed
✗ tasks-lifecycle: 0 passed, 9 failed
✗ json-schema-2020-12: 0 passed, 2 failed

Total: 8 passed, 37 failed

Not scored for 2026-07-28: 2 scenario(s) run, 2 failing. These do not affect conformance.
  ✗ tasks-lifecycle (extension)
  ✗ json-schema-2020-12 (pending)
`;

describe('the conformance summary', () => {
  it('gives each scenario of the summary once, with what the suite does not score', () => {
    expect(parseSummary(OUTPUT)).toEqual([
      { name: 'server-stateless', passed: 5, failed: 26 },
      { name: 'input-required-result-validate-input', passed: 3, failed: 0 },
      { name: 'tasks-lifecycle', passed: 0, failed: 9, unscored: 'extension' },
      { name: 'json-schema-2020-12', passed: 0, failed: 2, unscored: 'pending' },
    ]);
  });
});

describe('the token proxy', () => {
  let upstream: Server;
  let proxy: TokenProxy;
  let upstreamPort = 0;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push(req.headers);
      // Streamed in two writes, as an SSE answer is.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      req.resume();
      req.on('end', () => res.end('data: two\n\n'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamPort = (upstream.address() as AddressInfo).port;
    proxy = await startTokenProxy(`http://127.0.0.1:${upstreamPort}`, 'secret-token');
  });

  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  function post(headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const url = new URL(proxy.url);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end('{"jsonrpc":"2.0"}');
    });
  }

  it('adds the token, rewrites its own Host and Origin to the target, and streams the answer back', async () => {
    const proxyHost = new URL(proxy.url).host;
    const answer = await post({ 'content-type': 'application/json', origin: `http://${proxyHost}`, 'mcp-method': 'tools/list' });
    expect(answer).toEqual({ status: 200, body: 'data: one\n\ndata: two\n\n' });
    const headers = seen.at(-1);
    expect(headers?.authorization).toBe('Bearer secret-token');
    expect(headers?.host).toBe(`127.0.0.1:${upstreamPort}`);
    expect(headers?.origin).toBe(`http://127.0.0.1:${upstreamPort}`);
    expect(headers?.['mcp-method']).toBe('tools/list');
  });

  it('keeps a Host and Origin that name another machine, for the daemon to refuse', async () => {
    await post({ host: 'evil.example.com', origin: 'http://evil.example.com' });
    const headers = seen.at(-1);
    expect(headers?.host).toBe('evil.example.com');
    expect(headers?.origin).toBe('http://evil.example.com');
  });
});
