import type { ServerResponse } from 'node:http';
import { sendText, startHttpStub, type HttpStub, type StubRequest } from '../../helpers/http-stub.js';

export type PageRoute = (request: StubRequest, response: ServerResponse) => void;

/** A loopback site: each path answers with its route, anything else 404. */
export function startSite(routes: Record<string, PageRoute>): Promise<HttpStub> {
  return startHttpStub((request, response) => {
    const route = Object.hasOwn(routes, request.path) ? routes[request.path] : undefined;
    if (route) route(request, response);
    else sendText(response, 404, 'not found');
  });
}

export function html(body: string, status = 200): PageRoute {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    response.end(body);
  };
}

export function redirect(location: string, status = 302): PageRoute {
  return (_request, response) => {
    response.writeHead(status, { location });
    response.end();
  };
}

/** Requests the site saw for `path`. */
export function hits(site: HttpStub, path: string | RegExp): number {
  return site.requests.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path))).length;
}
