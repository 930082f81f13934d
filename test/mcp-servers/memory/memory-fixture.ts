import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { MemoryView } from '../../../mcp-servers/memory/format.js';
import { connectStdio, type StdioServerHandle } from '../../helpers/mcp-stdio.js';
import { MEMORY_SERVER } from '../../helpers/paths.js';
import type { TempDir } from '../../helpers/temp-dir.js';

export type { MemoryView };

/** A config folder and a data folder for memory servers, in one temp dir. */
export async function memoryFolders(home: TempDir, configToml = ''): Promise<{ configDir: string; dataDir: string }> {
  await home.write('config/config.toml', configToml);
  return { configDir: join(home.path, 'config'), dataDir: join(home.path, 'data') };
}

/** The compiled memory server, as the hub runs it. */
export function connectMemoryServer(folders: { configDir: string; dataDir: string }, env: Record<string, string> = {}): Promise<StdioServerHandle> {
  return connectStdio(process.execPath, [MEMORY_SERVER, '--config-dir', folders.configDir], { DESKTOP_ASSISTANT_DATA_DIR: folders.dataDir, ...env });
}

export function structured<T>(result: unknown): T {
  return (result as CallToolResult).structuredContent as T;
}

export async function save(server: StdioServerHandle, text: string, kind = 'fact', meta?: Record<string, unknown>): Promise<CallToolResult> {
  return (await server.client.callTool({ name: 'memory.save', arguments: { text, kind }, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
}

export async function savedId(server: StdioServerHandle, text: string, kind = 'fact'): Promise<number> {
  const result = await save(server, text, kind);
  if (result.isError) throw new Error(`save failed: ${JSON.stringify(result.content)}`);
  return structured<{ memory: MemoryView }>(result).memory.id;
}

export async function search(server: StdioServerHandle, query: string, k = 5): Promise<MemoryView[]> {
  return structured<{ memories: MemoryView[] }>(await server.client.callTool({ name: 'memory.search', arguments: { query, k } })).memories;
}

export async function list(server: StdioServerHandle, limit = 100): Promise<MemoryView[]> {
  return structured<{ memories: MemoryView[] }>(await server.client.callTool({ name: 'memory.list', arguments: { limit } })).memories;
}

export function memoryFilesExist(dataDir: string): boolean {
  return ['memory.sqlite', 'memory.index'].some((name) => existsSync(join(dataDir, name)));
}
