/** What a memory is about; the model picks one when it saves. */
export const MEMORY_KINDS = ['preference', 'fact', 'project', 'task_summary', 'note'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export function isMemoryKind(value: unknown): value is MemoryKind {
  return typeof value === 'string' && (MEMORY_KINDS as readonly string[]).includes(value);
}

/** A stored memory as callers see it (never its vector). */
export interface MemoryRecord {
  id: number;
  kind: MemoryKind;
  text: string;
  /** `sensitive` when the text held a credential, card number, id number, ...: saved only after the user confirmed. */
  sensitivity: 'none' | 'sensitive';
  /** What made it sensitive (SensitiveKind values); empty when not. */
  sensitiveKinds: string[];
  /** The turn that saved it, when known. */
  sourceTurn?: string;
  createdMs: number;
}

export interface ScoredMemory extends MemoryRecord {
  /** Cosine similarity to the query, -1..1 (vectors are unit length). */
  score: number;
}

/** What start-up (or the last sync) found when it checked the index against the database. */
export interface MemoryHealth {
  ok: boolean;
  records: number;
  indexed: number;
  /** Records that search and list may return: in both, with matching checksums. */
  verified: number;
  /** How search works now: exact, or through the graph index of a large store; none before the first memory. */
  index: 'exact' | 'graph' | 'none';
  /** One line per kind of problem, for people; any problem makes `ok` false. */
  problems: string[];
  /** What start-up repaired by itself (a damaged snapshot rebuilt from the database). */
  notes: string[];
}
