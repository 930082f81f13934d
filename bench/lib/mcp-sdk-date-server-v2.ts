/**
 * The same stdio server as mcp-sdk-date-server-v1.ts on the SDK's
 * v2 packages (`@modelcontextprotocol/server` 2.x): `serveStdio` reads the
 * client's first message and serves 2025-11-25 (`initialize`) or 2026-07-28
 * (`server/discover`, per-request `_meta`) from the one factory.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { fixedDate, runDate } from './mcp-sdk-run-date.js';

serveStdio(() => {
  const server = new McpServer({ name: 'bench-date-v2', version: '1.0.0' });
  server.registerTool('date', { description: 'The current date and time.' }, runDate);
  server.registerTool('fixed_date', { description: 'A fixed date: the SDK round trip without a fork.' }, fixedDate);
  return server;
});
