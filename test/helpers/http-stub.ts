import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stub saw it. */
export interface StubRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
}

export type StubHandler = (request: StubRequest, response: ServerResponse) => void;

export interface HttpStub {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Every request so far, in arrival order. */
  requests: StubRequest[];
  close(): Promise<void>;
}

// Loopback only: the tests must never reach, or be reachable from, another address.
const HOST = '127.0.0.1';

/** A real HTTP server on a free loopback port that answers with `handler`. */
export async function startHttpStub(handler: StubHandler): Promise<HttpStub> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${HOST}`);
    const request: StubRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers };
    requests.push(request);
    try {
      handler(request, res);
    } catch (error) {
      // A broken handler must fail the test loudly, not hang the client.
      sendText(res, 599, `stub handler threw: ${(error as Error).message}`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${HOST}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Keep-alive sockets from finished clients would otherwise hold close() open.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A loopback URL that refuses connections: a port that was free a moment ago. */
export async function refusedUrl(): Promise<string> {
  const stub = await startHttpStub(() => undefined);
  await stub.close();
  return stub.url;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(body);
}
