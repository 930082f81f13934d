import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { openStateDb, SCHEMA_VERSION, SqliteAuditLog, type StateDb } from '../../../src/host/store/index.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { auditRecord } from './fixtures.js';

let dir: TempDir;
const opened: StateDb[] = [];
beforeEach(async () => {
  dir = await makeTempDir('da-store-');
});
afterEach(async () => {
  for (const state of opened.splice(0)) state.close();
  await dir.remove();
});

function open(dataDir: string, busyTimeoutMs?: number): StateDb {
  const state = openStateDb(dataDir, busyTimeoutMs === undefined ? {} : { busyTimeoutMs });
  opened.push(state);
  return state;
}

/** The error `fn` throws (the test fails when it throws none). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, none was thrown');
}

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('openStateDb', () => {
  it('creates the folder (0700), the file (0600) and the schema, in WAL mode', () => {
    const dataDir = join(dir.path, 'share', 'desktop-assistant');
    const state = open(dataDir);
    expect(state.path).toBe(join(dataDir, 'state.sqlite'));
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(state.path)).toBe(0o600);
    expect(state.journalMode).toBe('wal');
    expect(state.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(state.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(Number(state.db.pragma('busy_timeout', { simple: true }))).toBe(5000);
    // synchronous=NORMAL (1) with WAL: a committed row survives a process crash.
    expect(state.db.pragma('synchronous', { simple: true })).toBe(1);
    const tables = state.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['audit', 'tool_pins']));
    new SqliteAuditLog(state).record(auditRecord());
    expect(mode(`${state.path}-wal`)).toBe(0o600);
  });

  it('leaves the mode of an existing folder alone', () => {
    chmodSync(dir.path, 0o750);
    const state = open(dir.path);
    expect(mode(dir.path)).toBe(0o750);
    expect(mode(state.path)).toBe(0o600);
  });

  it('keeps the records across a close and a reopen', () => {
    const first = open(dir.path);
    new SqliteAuditLog(first).record(auditRecord({ tool: 'kept' }));
    first.close();
    const second = open(dir.path);
    expect(new SqliteAuditLog(second).recent(10).map((r) => r.tool)).toEqual(['kept']);
    expect(second.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  });

  it('refuses a file that is not a database, and leaves it as it was', () => {
    const garbage = Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 131 + 7) % 256));
    const path = join(dir.path, 'state.sqlite');
    writeFileSync(path, garbage);
    const error = thrown(() => open(dir.path));
    expect(isAppError(error, 'STATE_DB_CORRUPT')).toBe(true);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/move it away/i);
    expect(readFileSync(path).equals(garbage)).toBe(true);
    expect(readdirSync(dir.path)).toEqual(['state.sqlite']);
  });

  it('reports damage found after opening (a read) as STATE_DB_CORRUPT too', () => {
    const state = open(dir.path);
    const log = new SqliteAuditLog(state);
    for (let i = 0; i < 300; i += 1) log.record(auditRecord({ atMs: i, argsSummary: 'x'.repeat(200) }));
    state.close();
    const path = state.path;
    const bytes = readFileSync(path);
    const pageSize = bytes.readUInt16BE(16);
    expect(bytes.length).toBeGreaterThan(pageSize * 6);
    // Page 1 (the schema) stays; the audit's pages after it are overwritten.
    bytes.fill(0xa5, pageSize * 2, bytes.length);
    writeFileSync(path, bytes);
    const log2 = new SqliteAuditLog(open(dir.path));
    const error = thrown(() => log2.recent(1000));
    expect(isAppError(error, 'STATE_DB_CORRUPT')).toBe(true);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('refuses a database from a newer schema version and does not touch it', () => {
    const path = join(dir.path, 'state.sqlite');
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const before = readFileSync(path);
    const error = thrown(() => open(dir.path));
    expect(isAppError(error, 'STATE_DB_TOO_NEW')).toBe(true);
    expect((error as Error).message).toContain(path);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('says the data folder cannot be used when it is a file', async () => {
    const file = await dir.write('not-a-folder', 'x');
    const error = thrown(() => open(file));
    expect(isAppError(error, 'STATE_DB_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain(join(file, 'state.sqlite'));
  });

  it('upgrades nothing and loses nothing when opened at the current version by a second connection', () => {
    const a = open(dir.path);
    new SqliteAuditLog(a).record(auditRecord({ tool: 'a' }));
    const b = open(dir.path);
    expect(new SqliteAuditLog(b).recent(10).map((r) => r.tool)).toEqual(['a']);
  });
});

describe('two writers', () => {
  it('two connections interleave their writes', () => {
    const logA = new SqliteAuditLog(open(dir.path));
    const logB = new SqliteAuditLog(open(dir.path));
    for (let i = 0; i < 50; i += 1) {
      logA.record(auditRecord({ tool: 'a', atMs: i * 2 }));
      logB.record(auditRecord({ tool: 'b', atMs: i * 2 + 1 }));
    }
    const rows = logA.recent(1000);
    expect(rows).toHaveLength(100);
    expect(rows.slice(0, 4).map((r) => r.tool)).toEqual(['b', 'a', 'b', 'a']);
  });

  it('a write blocked past the busy timeout is a retryable STATE_DB_BUSY, and works once the lock is gone', () => {
    const holder = open(dir.path);
    const log = new SqliteAuditLog(open(dir.path, 0));
    holder.db.exec('BEGIN IMMEDIATE');
    const error = thrown(() => log.record(auditRecord()));
    expect(isAppError(error, 'STATE_DB_BUSY')).toBe(true);
    expect((error as { retryable: boolean }).retryable).toBe(true);
    holder.db.exec('COMMIT');
    log.record(auditRecord({ tool: 'after' }));
    expect(log.recent(10).map((r) => r.tool)).toEqual(['after']);
  });
});
