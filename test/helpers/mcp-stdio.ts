import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS_SERVER } from './paths.js';

export interface StdioServerHandle {
  client: Client;
  /** The server process. */
  pid: number;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** A real MCP client connected to a real stdio server process. */
export async function connectStdio(command: string, args: string[], env: Record<string, string> = {}, cwd?: string): Promise<StdioServerHandle> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    ...(cwd === undefined ? {} : { cwd }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'desktop-assistant-tests', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error(`${command} has no pid after connecting`);
  return { client, pid, stderr: () => stderr, close: () => client.close() };
}

/** The compiled tools server, as the host will run it. */
export function connectToolsServer(configDir: string, files: string[] = [], env: Record<string, string> = {}): Promise<StdioServerHandle> {
  return connectStdio(process.execPath, [TOOLS_SERVER, '--config-dir', configDir, ...files], env);
}

/** The text of a tool result, which the tools server always sends as one text item. */
export function resultText(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('');
}
