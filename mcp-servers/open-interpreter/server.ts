import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../../src/errors/index.js';
import { logEvent } from '../../src/log/index.js';
import { PACKAGE_VERSION } from '../../src/package-root.js';
import { errorResult } from './results.js';
import { runTask } from './run-task.js';
import type { InterpreterSettings } from './settings.js';
import { TOOL_NAME, interpreterTool } from './tool.js';

/**
 * The stdio MCP server of the Open Interpreter adapter: one tool,
 * openinterpreter.run. It starts and lists its tool whether or not the
 * command is installed; a call finds out, so the rest of the assistant
 * works without Open Interpreter.
 */
export function createInterpreterServer(settings: InterpreterSettings, serverEnv: NodeJS.ProcessEnv = process.env): Server {
  const server = new Server({ name: 'desktop-assistant-open-interpreter', version: PACKAGE_VERSION }, { capabilities: { tools: {} } });
  const tool = interpreterTool(settings.timeoutMs);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool] }));

  // tools/call goes through the fallback handler on purpose: the SDK's own
  // tools/call validation answers a non-object `arguments` with a protocol
  // error, and this server promises an error *result* for every bad call.
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    if (params.name !== TOOL_NAME) return errorResult('OPENINTERPRETER_UNKNOWN_TOOL', `no tool named ${String(params.name)}`);
    try {
      return await runTask(settings, params.arguments ?? {}, extra.signal, serverEnv);
    } catch (error) {
      logEvent('error', 'openinterpreter_internal_error', { error: messageOf(error) });
      return errorResult('OPENINTERPRETER_INTERNAL', `the adapter failed: ${messageOf(error)}`);
    }
  };

  return server;
}
