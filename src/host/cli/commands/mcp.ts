import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.js';

export const mcpCommand: CliCommand = {
  name: 'mcp',
  usage: 'desktop-assistant mcp [--config-dir DIR]',
  summary: 'offer every routed tool to another MCP client (an editor) over stdio',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } } });
    const { startHost } = await import('../../runtime.js');
    const { createFacadeServer } = await import('../../mcp-facade/index.js');
    const { serveOverStdio } = await import('../../../mcp-stdio/index.js');
    const host = await startHost({ configDir: values['config-dir'], env: io.env });
    try {
      await serveOverStdio(createFacadeServer(host.router, host.hub));
      return 0;
    } finally {
      await host.close();
    }
  },
};
