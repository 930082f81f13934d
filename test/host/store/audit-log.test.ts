import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateDb, SqliteAuditLog, type StateDb } from '../../../src/host/store/index.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { auditRecord } from './fixtures.js';

let dir: TempDir;
let state: StateDb;
let log: SqliteAuditLog;
beforeEach(async () => {
  dir = await makeTempDir('da-audit-');
  state = openStateDb(dir.path);
  log = new SqliteAuditLog(state);
});
afterEach(async () => {
  state.close();
  await dir.remove();
});

describe('SqliteAuditLog', () => {
  it('stores every field and reads it back, booleans as 0/1', () => {
    const record = auditRecord({
      atMs: 1_740_830_400_123,
      turnId: 'turn-42',
      entry: 'mcp',
      tool: 'fetch_page',
      server: 'everything',
      risk: 'write',
      decision: 'confirm',
      decidedBy: 'user',
      status: 'error',
      durationMs: 12.5,
      argsHash: 'f'.repeat(64),
      argsSummary: '{"url":"https://example.com"}',
      outputChars: 20000,
      truncated: true,
      detail: 'server said no',
    });
    log.record(record);
    const [stored] = log.recent(1);
    expect(stored).toEqual({ id: expect.any(Number), ...record });
    const raw = state.db.prepare('SELECT truncated, detail FROM audit').get();
    expect(raw).toEqual({ truncated: 1, detail: 'server said no' });
  });

  it('leaves detail out when there is none', () => {
    log.record(auditRecord({ truncated: false }));
    const [stored] = log.recent(1);
    expect(stored).not.toHaveProperty('detail');
    expect(stored?.truncated).toBe(false);
    expect(state.db.prepare('SELECT truncated FROM audit').pluck().get()).toBe(0);
  });

  it('is on disk when record returns: another connection sees the row at once', () => {
    const other = openStateDb(dir.path);
    try {
      log.record(auditRecord({ tool: 'seen' }));
      expect(new SqliteAuditLog(other).recent(5).map((r) => r.tool)).toEqual(['seen']);
    } finally {
      other.close();
    }
  });

  it('lists the newest first, by time, then by insertion for equal times', () => {
    log.record(auditRecord({ tool: 'middle', atMs: 2000 }));
    log.record(auditRecord({ tool: 'oldest', atMs: 1000 }));
    log.record(auditRecord({ tool: 'newest', atMs: 3000 }));
    log.record(auditRecord({ tool: 'newest-too', atMs: 3000 }));
    expect(log.recent(10).map((r) => r.tool)).toEqual(['newest-too', 'newest', 'middle', 'oldest']);
    expect(log.recent(2).map((r) => r.tool)).toEqual(['newest-too', 'newest']);
  });

  it('clamps the limit to 1..1000', () => {
    const insert = state.db.transaction(() => {
      for (let i = 0; i < 1005; i += 1) log.record(auditRecord({ atMs: i }));
    });
    insert();
    expect(log.recent(5000)).toHaveLength(1000);
    expect(log.recent(Number.POSITIVE_INFINITY)).toHaveLength(1000);
    expect(log.recent(0)).toHaveLength(1);
    expect(log.recent(-3)).toHaveLength(1);
    expect(log.recent(Number.NaN)).toHaveLength(1);
    expect(log.recent(2.9)).toHaveLength(2);
    expect(log.recent(1000)[0]?.atMs).toBe(1004);
  });

  it('redacts secrets in the detail, which error messages may quote', () => {
    log.record(auditRecord({ detail: 'GET https://bob:hunter2@example.com failed' }));
    expect(log.recent(1)[0]?.detail).toBe('GET https://bob:[redacted]@example.com failed');
  });

  it('records a non-finite duration as 0 rather than losing the record', () => {
    log.record(auditRecord({ durationMs: Number.NaN }));
    expect(log.recent(1)[0]?.durationMs).toBe(0);
  });

  it('answers an empty list when nothing was recorded', () => {
    expect(log.recent(20)).toEqual([]);
  });
});
