import { Hono } from 'hono';
import type { AuditBody, HealthBody, StateBody } from '../api-types.js';
import type { ApiDeps } from '../deps.js';
import { diskRoom } from '../../store/index.js';
import { errorResponse } from '../errors.js';
import { toolSummary } from '../tool-summary.js';

/** The routes that only read: health, state, tools, confirmations, audit, metrics. */
export function readRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: true, version: deps.version } satisfies HealthBody));

  app.get('/state', (c) =>
    c.json({
      state: deps.activity.state,
      mode: deps.voiceEnabled ? (deps.voice?.mode ?? 'turn_based') : 'text',
      voice: {
        enabled: deps.voiceEnabled,
        listening: deps.voice?.listening ?? false,
        ...(deps.voiceOff !== undefined ? { off: deps.voiceOff } : {}),
        ...(deps.voice?.room ? { room: deps.voice.room } : {}),
        ...(deps.voice?.missing?.length ? { missing: [...deps.voice.missing] } : {}),
      },
      ...(deps.dataDir !== undefined ? { storage: diskRoom(deps.dataDir) } : {}),
      providers: [deps.llmHealth.current],
      llm: { url: deps.llmHealth.url, ...(deps.llmHealth.missing ? { missing: { ...deps.llmHealth.missing } } : {}) },
      servers: deps.hub.servers(),
      tools: deps.router.catalog().map(toolSummary),
      turn: deps.activity.activeTurn,
      routerEnabled: deps.router.enabled,
      latency: deps.metrics.latest(),
    } satisfies StateBody),
  );

  app.get('/tools', (c) => c.json({ enabled: deps.router.enabled, tools: deps.router.catalog().map(toolSummary) }));

  app.get('/confirmations', (c) => c.json({ confirmations: deps.confirmations.list() }));

  app.get('/audit', (c) => {
    const raw = c.req.query('limit') ?? '50';
    const limit = Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return errorResponse(c, 'BAD_REQUEST', `limit must be a whole number from 1 to 1000, not ${JSON.stringify(raw)}`);
    return c.json({ records: deps.audit.recent(limit) } satisfies AuditBody);
  });

  app.get('/metrics', (c) => c.text(deps.metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));
  return app;
}
