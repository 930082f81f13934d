import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Risk, ToolDefinition } from './definition.js';

/** `_meta` keys under which a tool file's host-side details travel. */
export const META_RISK = 'desktop-assistant/risk';
export const META_ANNOUNCE = 'desktop-assistant/announce';
export const META_TIMEOUT_MS = 'desktop-assistant/timeoutMs';

const ANNOTATIONS: Record<Risk, Tool['annotations']> = {
  read: { readOnlyHint: true },
  write: { readOnlyHint: false, destructiveHint: false },
  high: { readOnlyHint: false, destructiveHint: true },
};

/**
 * A tool file as an MCP tool. Parameters are all optional (a missing one is
 * the empty string) and no others are accepted.
 */
export function toMcpTool(tool: ToolDefinition): Tool {
  const properties: Record<string, { type: string; description: string }> = {};
  for (const [name, param] of Object.entries(tool.params)) {
    properties[name] = { type: param.type, description: param.description };
  }
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: { type: 'object', properties, additionalProperties: false },
    annotations: { ...ANNOTATIONS[tool.risk] },
    _meta: {
      [META_RISK]: tool.risk,
      [META_ANNOUNCE]: tool.announce,
      [META_TIMEOUT_MS]: Math.round(tool.timeout * 1000),
    },
  };
}
