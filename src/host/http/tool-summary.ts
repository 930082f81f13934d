import type { RoutedTool } from '../router/index.js';
import type { ToolSummary } from './api-types.js';

export function toolSummary(tool: RoutedTool): ToolSummary {
  return {
    name: tool.name,
    server: tool.server,
    serverToolName: tool.serverToolName,
    description: tool.description,
    risk: tool.risk,
    riskSource: tool.riskSource,
    decision: tool.decision,
    status: tool.unsupported ? 'unsupported' : tool.quarantined ? 'quarantined' : tool.available ? 'ready' : 'unavailable',
    quarantined: tool.quarantined,
    changes: tool.changes,
  };
}
