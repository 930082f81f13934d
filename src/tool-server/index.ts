export { serveToolsOverStdio } from './stdio.js';
export { createToolsServer, type ToolsServerOptions } from './server.js';
