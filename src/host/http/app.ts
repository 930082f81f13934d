import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiDeps } from './deps.js';
import { errorResponse, handleError } from './errors.js';
import { actionRoutes } from './routes/action-routes.js';
import { eventRoutes } from './routes/event-routes.js';
import { mcpRoute } from './routes/mcp-route.js';
import { pageRoutes } from './routes/page-routes.js';
import { readRoutes } from './routes/read-routes.js';
import { securityMiddleware } from './security.js';

export interface ApiApp {
  app: Hono;
  close(): Promise<void>;
}

/** The HTTP API and the page. No CORS headers: other sites get nothing. */
export function createApiApp(deps: ApiDeps): ApiApp {
  const app = new Hono();
  app.onError(handleError);
  app.notFound((c) => errorResponse(c, 'NOT_FOUND', `no route ${c.req.method} ${c.req.path}`));
  app.use('*', securityMiddleware({ token: deps.token, bound: deps.bound }));
  app.use(
    '*',
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: (c) => errorResponse(c, 'BODY_TOO_LARGE', `the request body is over ${deps.maxBodyBytes} bytes`),
    }),
  );
  // Each concern's routes are a sub-app of their own, mounted here behind the checks above.
  const mcp = mcpRoute(deps);
  app.route('/', pageRoutes(deps));
  app.route('/', readRoutes(deps));
  app.route('/', actionRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', mcp.routes);
  return { app, close: () => mcp.closeAll() };
}
