import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Risk, ToolDefinition } from './definition.js';

import { META_ANNOUNCE, META_RISK, META_TIMEOUT_MS } from '../tool-meta/index.js';

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
      [META_TIMEOUT_MS]: tool.timeout.ms,
    },
  };
}
