import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withDeadline } from '../../deadline/index.js';
import { AppError, messageOf } from '../../errors/index.js';

// The SDK's own request timer only backs ours up: ours fires first and says why.
const SDK_TIMEOUT_MARGIN_MS = 5000;

export interface ToolCallRequest {
  server: string;
  /** The tool's name on its server. */
  tool: string;
  args: Record<string, unknown>;
  timeoutMs: number;
  signal?: AbortSignal;
  meta?: Record<string, unknown>;
}

/**
 * One `tools/call` with a deadline and the caller's signal. Either one
 * aborts a per-call signal (withDeadline), which the SDK turns into
 * `notifications/cancelled` to the server and which drops a late answer.
 * The SDK (1.32, Protocol.request) adds an abort listener to the signal it
 * is given and never removes it: giving it the per-call signal, and
 * removing our own listener from the caller's, keeps one turn's signal
 * over many calls from collecting listeners.
 */
export async function callToolWithDeadline(client: Client, request: ToolCallRequest): Promise<CallToolResult> {
  const { server, tool, signal, timeoutMs } = request;
  if (signal?.aborted) throw cancelled(server, tool, signal.reason);

  const deadline = withDeadline(signal, timeoutMs);

  try {
    // client.request, not client.callTool: the hub passes results through as
    // the server sent them; checking them against a tool's outputSchema is
    // not its job, and must not turn a usable answer into an exception.
    return await client.request({ method: 'tools/call', params: { name: tool, arguments: request.args, ...(request.meta === undefined ? {} : { _meta: request.meta }) } }, CallToolResultSchema, {
      signal: deadline.signal,
      timeout: timeoutMs + SDK_TIMEOUT_MARGIN_MS,
    });
  } catch (error) {
    if (deadline.reason === 'cancelled') throw cancelled(server, tool, error);
    if (deadline.reason === 'timeout' || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
      throw new AppError('TOOL_TIMEOUT', `tool ${tool} on server ${server} timed out after ${timeoutMs} ms`, { cause: error, retryable: true });
    }
    // The connection closed under the call, or just before it ("Not connected").
    if ((error instanceof McpError && error.code === ErrorCode.ConnectionClosed) || client.transport === undefined) {
      throw new AppError('TOOL_UNAVAILABLE', `server ${server} is temporarily unavailable: it stopped during the call`, {
        cause: error,
        retryable: true,
      });
    }
    throw new AppError('TOOL_FAILED', `tool ${tool} on server ${server} failed: ${messageOf(error)}`, { cause: error });
  } finally {
    deadline.dispose();
  }
}

function cancelled(server: string, tool: string, cause: unknown): AppError {
  return new AppError('TOOL_CANCELLED', `call of tool ${tool} on server ${server} was cancelled`, { cause });
}
