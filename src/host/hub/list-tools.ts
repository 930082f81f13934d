import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ListToolsResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

// A server that hands out cursors forever must not hang the hub.
const MAX_PAGES = 100;

/**
 * Every tool a server offers, following `nextCursor` page by page. A name
 * listed twice keeps its first definition (`duplicates` names the others).
 * A plain request, not Client.listTools: that one compiles each tool's
 * outputSchema with ajv and throws on one it cannot compile, which would
 * fail the whole server over one odd tool (and its cache keeps only the
 * last page's tools).
 */
export async function listAllTools(client: Client, options: RequestOptions = {}): Promise<{ tools: Tool[]; duplicates: string[] }> {
  const tools: Tool[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const params = cursor === undefined ? {} : { cursor };
    const result = await client.request({ method: 'tools/list', params }, ListToolsResultSchema, options);
    for (const tool of result.tools) {
      if (seen.has(tool.name)) duplicates.push(tool.name);
      else {
        seen.add(tool.name);
        tools.push(tool);
      }
    }
    cursor = result.nextCursor;
    if (cursor === undefined || cursors.has(cursor)) break;
    cursors.add(cursor);
  }
  return { tools, duplicates };
}
