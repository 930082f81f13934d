import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createToolsServer, type ToolsServerOptions } from './server.js';

/**
 * Serves the tool files on stdin/stdout until the client closes stdin.
 * Only MCP messages go to stdout; diagnostics go to stderr.
 */
export async function serveToolsOverStdio(options: ToolsServerOptions): Promise<void> {
  const tools = await createToolsServer(options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await tools.server.connect(transport);
  await closed;
  await tools.close();
}
