import type { Statement } from 'better-sqlite3';
import type { AuditLog, AuditRecord, StoredAuditRecord } from './types.js';
import { redactSecrets } from '../../secrets/index.js';
import type { StateDb } from './state-db.js';

export const RECENT_MAX = 1000;

interface AuditRow {
  id: number;
  at_ms: number;
  turn_id: string;
  entry: string;
  tool: string;
  server: string;
  risk: string;
  decision: string;
  decided_by: string;
  status: string;
  duration_ms: number;
  args_hash: string;
  args_summary: string;
  output_chars: number;
  truncated: number;
  detail: string | null;
}

/**
 * The tool-call audit in the state database. Each write is one autocommitted
 * statement: when it returns, the row is in the WAL (it survives a crash of
 * any process; see state-db.ts for power cuts) and visible to every other
 * process. `detail` is redacted here too, as error messages quote what they
 * failed on. Failures are AppErrors (STATE_DB_DISK_FULL and STATE_DB_BUSY,
 * retryable; STATE_DB_CORRUPT; ...).
 *
 * When the audit cannot be written (a full disk, a read-only or damaged
 * file), a tool call does not run: a call is written down as `running`
 * before it runs (`begin`), and the router refuses one whose row cannot be
 * written with AUDIT_UNWRITABLE, naming the file and the cause. Its outcome
 * then replaces that row (`complete`); if that write fails, the call has run
 * and its result stands, the row stays `running` (the audit shows a call
 * whose end it could not keep) and the router logs the failure. A refusal
 * that cannot be written (nothing ran) is only logged. Nothing is
 * remembered between calls: each one tries again, so tool calls run again as
 * soon as the disk has room, with no restart.
 */
export class SqliteAuditLog implements AuditLog {
  private readonly insert: Statement<unknown[]>;
  private readonly update: Statement<unknown[]>;
  private readonly selectRecent: Statement<[number], AuditRow>;

  constructor(private readonly state: StateDb) {
    this.insert = state.use((db) =>
      db.prepare(
        `INSERT INTO audit (at_ms, turn_id, entry, tool, server, risk, decision, decided_by, status, duration_ms,
           args_hash, args_summary, output_chars, truncated, detail)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    );
    this.update = state.use((db) =>
      db.prepare(
        `UPDATE audit SET at_ms = ?, turn_id = ?, entry = ?, tool = ?, server = ?, risk = ?, decision = ?, decided_by = ?, status = ?,
           duration_ms = ?, args_hash = ?, args_summary = ?, output_chars = ?, truncated = ?, detail = ?
         WHERE id = ?`,
      ),
    );
    // Newest first by time; the id breaks ties and orders rows from one clock.
    this.selectRecent = state.use((db) =>
      db.prepare<[number], AuditRow>('SELECT * FROM audit ORDER BY at_ms DESC, id DESC LIMIT ?'),
    );
  }

  /** The file the records are in, for messages. */
  get path(): string {
    return this.state.path;
  }

  record(entry: AuditRecord): void {
    this.state.use(() => this.insert.run(...columns(entry)));
  }

  begin(entry: AuditRecord): number {
    return Number(this.state.use(() => this.insert.run(...columns({ ...entry, status: 'running' }))).lastInsertRowid);
  }

  complete(id: number, entry: AuditRecord): void {
    this.state.use(() => this.update.run(...columns(entry), id));
  }

  /** The newest `limit` records, newest first; `limit` is clamped to 1..1000. */
  recent(limit: number): StoredAuditRecord[] {
    const clamped = Number.isNaN(limit) ? 1 : Math.min(RECENT_MAX, Math.max(1, Math.trunc(limit)));
    return this.state.use(() => this.selectRecent.all(clamped)).map(fromRow);
  }
}

/** The row's values, in the order of the INSERT's and the UPDATE's columns. */
function columns(entry: AuditRecord): unknown[] {
  return [
    entry.atMs,
    entry.turnId,
    entry.entry,
    entry.tool,
    entry.server,
    entry.risk,
    entry.decision,
    entry.decidedBy,
    entry.status,
    finiteOrZero(entry.durationMs),
    entry.argsHash,
    entry.argsSummary,
    finiteOrZero(entry.outputChars),
    entry.truncated ? 1 : 0,
    entry.detail === undefined ? null : redactSecrets(entry.detail),
  ];
}

/** A duration or size that is not a number is recorded as 0 rather than losing the record. */
function finiteOrZero(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

function fromRow(row: AuditRow): StoredAuditRecord {
  const record: StoredAuditRecord = {
    id: row.id,
    atMs: row.at_ms,
    turnId: row.turn_id,
    entry: row.entry as StoredAuditRecord['entry'],
    tool: row.tool,
    server: row.server,
    risk: row.risk as StoredAuditRecord['risk'],
    decision: row.decision as StoredAuditRecord['decision'],
    decidedBy: row.decided_by as StoredAuditRecord['decidedBy'],
    status: row.status as StoredAuditRecord['status'],
    durationMs: row.duration_ms,
    argsHash: row.args_hash,
    argsSummary: row.args_summary,
    outputChars: row.output_chars,
    truncated: row.truncated === 1,
  };
  if (row.detail !== null) record.detail = row.detail;
  return record;
}
