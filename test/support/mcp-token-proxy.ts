/**
 * A loopback HTTP proxy that adds the daemon's token: the conformance suite
 * can send no header of its own, and every route of the daemon but /health
 * needs `Authorization: Bearer <token>`. Everything else passes as sent,
 * streamed both ways (SSE included). A Host or Origin naming the proxy's own
 * loopback address is rewritten to the daemon's, so the daemon's DNS-rebinding
 * check still sees, and refuses, any other name the suite sends.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenProxy {
  /** The proxy's URL for the daemon's /mcp. */
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Listens on 127.0.0.1, an ephemeral port, forwarding every path to `target` (the daemon's origin). */
export async function startTokenProxy(target: string, token: string): Promise<TokenProxy> {
  const upstream = new URL(target);
  let ownPort = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const headers = rewriteHeaders(incoming.headers, ownPort, upstream.host);
    headers.authorization = `Bearer ${token}`;
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`token proxy: ${error.message}`);
    });
    // The suite closing an SSE stream ends the daemon's side too.
    outgoing.on('close', () => forward.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  ownPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${ownPort}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Host and Origin that name the proxy become the daemon's; any other value is kept, for the daemon to judge. */
function rewriteHeaders(headers: IncomingHttpHeaders, ownPort: number, upstreamHost: string): IncomingHttpHeaders {
  const own = new Set(LOOPBACK_NAMES.map((name) => `${name}:${ownPort}`));
  const out: IncomingHttpHeaders = { ...headers };
  if (out.host !== undefined && own.has(out.host.toLowerCase())) out.host = upstreamHost;
  const origin = out.origin;
  if (typeof origin === 'string') {
    try {
      const url = new URL(origin);
      if (url.protocol === 'http:' && own.has(url.host.toLowerCase())) out.origin = `http://${upstreamHost}`;
    } catch {
      // Not a URL: the daemon refuses it as it is.
    }
  }
  return out;
}
