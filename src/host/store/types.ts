import type { DecidedBy, Decision, EntryPoint, Risk, ToolCallStatus } from '../../events/index.js';

/** One tool call, as the audit keeps it. Arguments only as a hash and a redacted summary. */
export interface AuditRecord {
  /** Milliseconds since the epoch. */
  atMs: number;
  turnId: string;
  entry: EntryPoint;
  tool: string;
  server: string;
  risk: Risk;
  decision: Decision;
  decidedBy: DecidedBy;
  /** `running`: written before the call ran and not yet replaced by its outcome (still running, or its outcome could not be written). */
  status: ToolCallStatus | 'running';
  durationMs: number;
  /** sha256 hex of the canonical JSON of the arguments. */
  argsHash: string;
  /** Redacted, truncated summary of the arguments. */
  argsSummary: string;
  outputChars: number;
  truncated: boolean;
  /** Short reason for an error or refusal, redacted. */
  detail?: string;
}

export interface StoredAuditRecord extends AuditRecord {
  id: number;
}

export interface AuditLog {
  /** Writes a call that is over (a refusal, or a call that ran and was not begun). */
  record(entry: AuditRecord): void;
  /** Writes a call about to run, as `running`; answers the row's id for `complete`. Throws when it cannot be written. */
  begin(entry: AuditRecord): number;
  /** Replaces a begun call's row with its outcome. */
  complete(id: number, entry: AuditRecord): void;
  recent(limit: number): StoredAuditRecord[];
}

/** A pinned tool definition: the hash approved (or first seen) for a server's tool. */
export interface ToolPin {
  server: string;
  tool: string;
  hash: string;
  /** The definition that was hashed, as canonical JSON, so a change can be shown. */
  definition: string;
  approvedAtMs: number;
}

export interface PinStore {
  get(server: string, tool: string): ToolPin | undefined;
  /** Stores or replaces the pin. */
  put(pin: ToolPin): void;
}
