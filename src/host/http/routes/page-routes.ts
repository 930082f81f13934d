import { Hono } from 'hono';
import type { ApiDeps } from '../deps.js';
import { errorResponse } from '../errors.js';

/** GET / and GET /assets/<file>: the web page, from the package. */
export function pageRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  const serve = (name: string) => {
    const file = deps.staticFiles.get(name);
    return file ? new Response(file.body, { headers: { 'content-type': file.type, 'cache-control': 'no-cache' } }) : undefined;
  };
  app.get('/', (c) => serve('index.html') ?? errorResponse(c, 'NOT_FOUND', 'the web page is not installed'));
  app.get('/assets/:file', (c) => serve(c.req.param('file')) ?? errorResponse(c, 'NOT_FOUND', `no such file: ${c.req.param('file')}`));
  return app;
}
