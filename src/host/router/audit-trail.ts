import { AppError, isAppError, messageOf } from '../../errors/index.js';
import { logEvent, type LogSink } from '../../log/index.js';
import type { AuditLog, AuditRecord } from '../store/index.js';

/**
 * The router's side of the audit: a call is written down before it runs,
 * and a call that cannot be written down does not run (AUDIT_UNWRITABLE).
 * What cannot be written once a call is over (its outcome, a refusal) is
 * logged and reported, never thrown: the call's result stands. No failure
 * is remembered, so the next call tries again (see SqliteAuditLog).
 */
export class AuditTrail {
  constructor(
    private readonly audit: AuditLog,
    /** Told each time a write fails, with the words for the user (an event for the terminal and the page). */
    private readonly onFailure: (message: string, turnId: string) => void,
    private readonly log: LogSink = process.stderr,
  ) {}

  /** The row of a call about to run, as `running`; throws AUDIT_UNWRITABLE when it cannot be written. */
  begin(entry: AuditRecord): number {
    try {
      return this.audit.begin(entry);
    } catch (error) {
      const room = isAppError(error, 'STATE_DB_DISK_FULL') ? ': free space on that disk and tool calls run again at once' : '';
      const message = `${entry.tool} did not run: a tool call that cannot be audited does not run, and ${messageOf(error)}${room}`;
      this.failed('audit_unwritable', entry, error, message);
      throw new AppError('AUDIT_UNWRITABLE', message, { cause: error, retryable: true });
    }
  }

  /** The outcome: replaces the begun row (`id`), or writes a new one; a failure is logged, not thrown. */
  end(id: number | undefined, entry: AuditRecord): void {
    try {
      if (id === undefined) this.audit.record(entry);
      else this.audit.complete(id, entry);
    } catch (error) {
      const what = id === undefined ? `the refusal of ${entry.tool} was not audited` : `${entry.tool} ran, but its outcome was not audited (its row says running)`;
      this.failed('audit_write_failed', entry, error, `${what}: ${messageOf(error)}`);
    }
  }

  private failed(event: string, entry: AuditRecord, error: unknown, message: string): void {
    // What the row would have held, less the arguments' summary (the hash names them).
    logEvent('error', event, { tool: entry.tool, server: entry.server, turnId: entry.turnId, status: entry.status, argsHash: entry.argsHash, code: isAppError(error) ? error.code : 'STATE_DB_ERROR', error: messageOf(error) }, this.log);
    this.onFailure(message, entry.turnId);
  }
}
