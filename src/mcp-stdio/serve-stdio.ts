import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CheckedStdioTransport } from './checked-transport.js';

/**
 * Serves an MCP server on stdin/stdout until the client closes stdin. Only
 * MCP messages go to stdout; diagnostics go to stderr. A message that is
 * not valid JSON-RPC is answered with an error, not dropped
 * (CheckedStdioTransport).
 */
export async function serveOverStdio(server: Server, onClose: () => Promise<void> = async () => undefined): Promise<void> {
  const transport = new CheckedStdioTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(transport);
  await closed;
  await onClose();
  await server.close();
}
