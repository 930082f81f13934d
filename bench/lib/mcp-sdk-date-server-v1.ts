/**
 * A stdio MCP server with one tool, `date`, on the SDK's v1 package
 * (`@modelcontextprotocol/sdk` 1.x, high-level `McpServer`): it speaks
 * 2025-11-25 only. bench/mcp-sdk.ts starts it as its own process.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { runDate } from './mcp-sdk-run-date.js';

const server = new McpServer({ name: 'bench-date-v1', version: '1.0.0' });
server.registerTool('date', { description: 'The current date and time.' }, runDate);
await server.connect(new StdioServerTransport());
