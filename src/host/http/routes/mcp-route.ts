import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { messageOf } from '../../../errors/index.js';
import { logEvent } from '../../../log/index.js';
import { createFacadeServer } from '../../mcp-facade/index.js';
import type { ApiDeps } from '../deps.js';
import { errorResponse } from '../errors.js';

/** Sessions kept at once; the oldest is closed to make room. */
const MAX_SESSIONS = 16;

/**
 * /mcp: the routed tools over MCP Streamable HTTP, behind the same token and
 * Host/Origin checks as the rest. Stateful sessions, because a confirmation
 * by elicitation is a request from us whose answer comes back in a later
 * POST of the same session.
 */
export function mcpRoute(deps: ApiDeps): { routes: Hono; closeAll(): Promise<void> } {
  const app = new Hono();
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  app.all('/mcp', async (c) => {
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId) {
      const transport = sessions.get(sessionId);
      if (!transport) return errorResponse(c, 'NOT_FOUND', `no MCP session ${sessionId}: initialize a new one`);
      return transport.handleRequest(c.req.raw);
    }
    if (sessions.size >= MAX_SESSIONS) await sessions.values().next().value?.close();
    const server = createFacadeServer(deps.router, deps.hub);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      // The session is over for the client either way: a server that fails to close is only logged.
      server.close().catch((error: unknown) => logEvent('warn', 'mcp_session_close_failed', { error: messageOf(error) }));
    };
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });

  return {
    routes: app,
    closeAll: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
    },
  };
}
