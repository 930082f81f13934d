import { serveOverStdio } from '../mcp-stdio/index.js';
import { createToolsServer, type ToolsServerOptions } from './server.js';

/** Serves the tool files on stdin/stdout until the client closes stdin. */
export async function serveToolsOverStdio(options: ToolsServerOptions): Promise<void> {
  const tools = await createToolsServer(options);
  // tools.close() stops the folder watcher (closing the server again is harmless).
  await serveOverStdio(tools.server, () => tools.close());
}
