import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type JSONRPCRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Risk } from '../../events/index.js';
import { META_RISK, META_SERVER } from '../../tool-meta/index.js';
import type { ToolHub } from '../hub/index.js';
import type { RoutedTool, ToolRouter } from '../router/index.js';
import { PACKAGE_VERSION } from '../../package-root.js';
import { elicitationConfirmation } from './elicitation.js';

const ANNOTATIONS: Record<Risk, Tool['annotations']> = {
  read: { readOnlyHint: true },
  write: { readOnlyHint: false, destructiveHint: false },
  high: { readOnlyHint: false, destructiveHint: true },
};

/**
 * The routed tools offered to another MCP client (an editor): the same
 * names, the same router and audit (entry point `mcp`). Each call is a turn
 * of its own; the client's cancellation reaches the tool.
 */
export function createFacadeServer(router: ToolRouter, hub: ToolHub): Server {
  const server = new Server(
    { name: 'desktop-assistant', version: PACKAGE_VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  const confirmation = elicitationConfirmation(server);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: router.offered().map(asMcpTool) }));

  // As in the tools server: the fallback handler, so malformed arguments
  // get an error result from the router (and an audit record), not a
  // protocol error from the SDK's own validation.
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    const turn = router.newTurn('mcp', confirmation, extra.signal);
    const result = await router.call(turn, { name: String(params.name ?? ''), arguments: params.arguments ?? {} });
    return { content: [{ type: 'text', text: result.text }], isError: result.isError };
  };

  const stopFollowing = hub.onToolsChanged(() => {
    // Fails only with no client connected: a client lists the tools when it connects.
    server.sendToolListChanged().catch(() => undefined);
  });
  server.onclose = stopFollowing;
  return server;
}

function asMcpTool(tool: RoutedTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    annotations: { ...ANNOTATIONS[tool.risk] },
    _meta: { [META_RISK]: tool.risk, [META_SERVER]: tool.server },
  };
}
