import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { errorResponse } from './errors.js';

export interface SecurityOptions {
  token: string;
  /** The bound host and port, read at each request: port 0 becomes the real port after listening. */
  bound: () => { host: string; port: number };
}

/** Reachable without the token: a minimal health check and the page itself (it holds no data). */
function isPublic(method: string, path: string): boolean {
  return method === 'GET' && (path === '/health' || path === '/' || path.startsWith('/assets/'));
}

/**
 * DNS-rebinding protection and authentication. The Host header must name
 * the loopback address we are bound to (a rebound name does not), an Origin
 * (sent by browsers) must be our own page's, and every route but the public
 * ones needs `Authorization: Bearer <token>`.
 */
export function securityMiddleware(options: SecurityOptions): MiddlewareHandler {
  return async (c, next) => {
    const { port } = options.bound();
    const hosts = allowedHosts(port);
    const host = (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
    if (!hosts.has(host)) return errorResponse(c, 'FORBIDDEN_HOST', `requests must be addressed to this machine's loopback address, not ${host}`);
    const origin = c.req.header('origin');
    if (origin !== undefined && !hosts.has(originHost(origin))) {
      return errorResponse(c, 'FORBIDDEN_ORIGIN', `requests from ${origin} are not allowed`);
    }
    if (!isPublic(c.req.method, c.req.path) && !hasToken(c.req.header('authorization'), options.token)) {
      return errorResponse(c, 'UNAUTHORIZED', 'missing or wrong token: send Authorization: Bearer <token> (desktop-assistant token prints it)');
    }
    await next();
  };
}

function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}

function hasToken(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
