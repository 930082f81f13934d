import { Hono } from 'hono';
import type { ApiDeps } from '../deps.js';
import { eventStream } from '../sse.js';

/** GET /events: the bus as Server-Sent Events, with a replay and heartbeats. */
export function eventRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  app.get('/events', (c) => {
    const stream = eventStream(deps.events, c.req.header('last-event-id'), { replayCount: deps.sse.replayCount, heartbeatMs: deps.sse.heartbeatMs });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  });
  return app;
}
