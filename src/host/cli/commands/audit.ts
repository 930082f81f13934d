import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { dataDir } from '../../../config/index.js';
import { openStateDb, RECENT_MAX, SqliteAuditLog, STATE_DB_FILE, type StoredAuditRecord } from '../../store/index.js';
import { UsageError, type CliCommand } from '../command.js';

const DEFAULT_LIMIT = 20;

export const auditCommand: CliCommand = {
  name: 'audit',
  usage: 'desktop-assistant audit [--limit N] [--json] [--config-dir DIR]',
  summary: `list recent tool calls, newest first (default ${DEFAULT_LIMIT}, at most ${RECENT_MAX}; --json: one JSON object a line)`,
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: { limit: { type: 'string' }, json: { type: 'boolean' }, 'config-dir': { type: 'string' } },
    });
    const limit = parseLimit(values.limit);
    const dir = dataDir(io.env);
    const path = join(dir, STATE_DB_FILE);
    // A look at the audit creates nothing: no file yet means no call yet.
    const records = existsSync(path) ? readRecent(dir, limit) : [];
    if (values.json) {
      for (const record of records) io.stdout.write(`${JSON.stringify(record)}\n`);
      return 0;
    }
    if (records.length === 0) {
      io.stdout.write(`no tool calls recorded yet in ${path}\n`);
      return 0;
    }
    io.stdout.write(formatTable(records));
    return 0;
  },
};

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > RECENT_MAX) {
    throw new UsageError(`--limit must be a whole number from 1 to ${RECENT_MAX}, not ${JSON.stringify(text)}`);
  }
  return limit;
}

function readRecent(dir: string, limit: number): StoredAuditRecord[] {
  const state = openStateDb(dir);
  try {
    return new SqliteAuditLog(state).recent(limit);
  } finally {
    state.close();
  }
}

const HEADER = ['TIME', 'ENTRY', 'TOOL', 'SERVER', 'RISK', 'DECISION', 'STATUS', 'DURATION', 'OUTPUT', 'ARGS'];
/** Columns aligned to the right (numbers). */
const RIGHT = new Set([7, 8]);

/** One aligned line per record, under a header; the arguments summary last, as it is the longest. */
export function formatTable(records: StoredAuditRecord[]): string {
  const rows = records.map((r) => [
    localIso(r.atMs),
    r.entry,
    r.tool,
    r.server,
    r.risk,
    `${r.decision} by ${r.decidedBy}`,
    r.status,
    `${Math.round(r.durationMs)} ms`,
    `${r.outputChars} chars${r.truncated ? ' (truncated)' : ''}`,
    r.detail === undefined ? r.argsSummary : `${r.argsSummary}  (${r.detail})`,
  ].map(printable));
  const all = [HEADER, ...rows];
  const widths = HEADER.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const lines = all.map((row) =>
    row
      .map((cell, column) => {
        if (column === row.length - 1) return cell;
        const width = widths[column] ?? 0;
        return RIGHT.has(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** Local time with its offset: 2025-03-01T14:05:09+01:00. */
export function localIso(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
  );
}

/**
 * Tool and server names come from third-party servers: control characters and
 * bidirectional overrides are shown escaped, so nothing can move the cursor,
 * recolour the terminal or make one line read as another.
 */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
