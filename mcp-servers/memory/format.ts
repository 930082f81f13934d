import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppError } from '../../src/errors/index.js';
import type { MemoryRecord, ScoredMemory } from '../../src/memory/index.js';

/** A memory as the model and other clients read it: the time as ISO text, never the vector. */
export interface MemoryView {
  id: number;
  kind: string;
  text: string;
  score?: number;
  time: string;
  sensitive?: true;
}

export function view(record: MemoryRecord | ScoredMemory): MemoryView {
  return {
    id: record.id,
    kind: record.kind,
    text: record.text,
    ...('score' in record ? { score: Math.round(record.score * 1000) / 1000 } : {}),
    time: new Date(record.createdMs).toISOString(),
    ...(record.sensitivity === 'sensitive' ? { sensitive: true as const } : {}),
  };
}

/** Lines for the model, the same data as structured content for programs (the host's retrieval reads that). */
export function memoriesResult(records: (MemoryRecord | ScoredMemory)[], problems: string[], empty: string): CallToolResult {
  const memories = records.map(view);
  const lines = memories.map((m) => `#${m.id} [${m.kind}] ${m.text} (${m.score === undefined ? '' : `score ${m.score}, `}saved ${m.time.slice(0, 10)})`);
  const warning = problems.length === 0 ? [] : [`(memory health: ${problems.join('; ')})`];
  return {
    content: [{ type: 'text', text: [...warning, ...(lines.length > 0 ? lines : [empty])].join('\n') }],
    structuredContent: { memories, ...(problems.length === 0 ? {} : { problems }) },
  };
}

export function textResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function errorResult(error: AppError): CallToolResult {
  return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], isError: true };
}
