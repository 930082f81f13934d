import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { MemoryConfig } from '../../config/index.js';
import type { ToolHub } from '../hub/index.js';

/** A memory given to the model as context. */
export interface RecalledMemory {
  id: number;
  kind: string;
  text: string;
  score: number;
  time: string;
}

/** Finds the memories worth giving the model for what the user just said. */
export interface MemoryRecall {
  recall(text: string, options: { signal?: AbortSignal }): Promise<RecalledMemory[]>;
}

const MEMORY_SERVER = 'memory';
const SEARCH_TOOL = 'memory.search';
/** Recall must not hold up an answer: past this, the turn goes on without memories. */
const RECALL_TIMEOUT_MS = 3000;

/**
 * Recall through the memory server's search, straight through the hub:
 * this is the host reading context for the model, not a call the model
 * asked for, so it is neither offered, confirmed nor audited as one. Only
 * memories at least `[memory] min_score` similar are kept, so unrelated
 * memories are not given.
 */
export function hubMemoryRecall(hub: ToolHub, config: MemoryConfig): MemoryRecall {
  return {
    async recall(text, { signal }) {
      const query = text.slice(0, 1000);
      if (config.top_k === 0 || query.trim() === '') return [];
      const tool = hub.tools().find((t) => t.server === MEMORY_SERVER && t.serverToolName === SEARCH_TOOL);
      if (!tool) return [];
      const timeoutMs = Math.min(RECALL_TIMEOUT_MS, config.embeddings.timeout.ms);
      const result = await hub.callTool(tool.name, { query, k: config.top_k, min_score: config.min_score }, { signal, timeoutMs });
      return recalledFrom(result);
    },
  };
}

function recalledFrom(result: CallToolResult): RecalledMemory[] {
  if (result.isError) return [];
  const memories = (result.structuredContent as { memories?: unknown } | undefined)?.memories;
  if (!Array.isArray(memories)) return [];
  return memories.filter(
    (m): m is RecalledMemory =>
      typeof m === 'object' && m !== null && typeof m.id === 'number' && typeof m.text === 'string' && typeof m.kind === 'string' && typeof m.score === 'number' && typeof m.time === 'string',
  );
}

/** The context message: kept apart from the history, rebuilt for every turn. */
export function memoryContext(memories: readonly RecalledMemory[]): string {
  const lines = memories.map((m) => `- (${m.kind}, saved ${m.time.slice(0, 10)}) ${m.text}`);
  return `What the user asked you to remember earlier that may bear on this question (use it only if it helps):\n${lines.join('\n')}`;
}
