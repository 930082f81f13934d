/**
 * A stdio MCP server with two tools, `date` and `fixed_date`, on the SDK's v1 package
 * (`@modelcontextprotocol/sdk` 1.x, high-level `McpServer`): it speaks
 * 2025-11-25 only. bench/mcp-sdk.ts starts it as its own process.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { fixedDate, runDate } from './mcp-sdk-run-date.js';

const server = new McpServer({ name: 'bench-date-v1', version: '1.0.0' });
server.registerTool('date', { description: 'The current date and time.' }, runDate);
server.registerTool('fixed_date', { description: 'A fixed date: the SDK round trip without a fork.' }, fixedDate);
await server.connect(new StdioServerTransport());
