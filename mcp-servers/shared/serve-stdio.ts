import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/**
 * Serves an MCP server on stdin/stdout until the client closes stdin. Only
 * MCP messages go to stdout; diagnostics go to stderr.
 */
export async function serveOverStdio(server: Server, onClose: () => Promise<void> = async () => undefined): Promise<void> {
  const transport = new StdioServerTransport();
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
