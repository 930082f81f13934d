import { join } from 'node:path';
import type { Statement } from 'better-sqlite3';
import { openDatabase, type DatabaseIdentity, type SqliteFile } from '../sqlite/index.js';
import { recordChecksum, vectorChecksum } from './checksums.js';
import { MEMORY_MIGRATIONS } from './schema.js';
import type { MemoryKind, MemoryRecord } from './types.js';

export const MEMORY_DB_FILE = 'memory.sqlite';

const MEMORY_DB: DatabaseIdentity = {
  codes: { corrupt: 'MEMORY_DB_CORRUPT', tooNew: 'MEMORY_DB_TOO_NEW', busy: 'MEMORY_DB_BUSY', unavailable: 'MEMORY_DB_UNAVAILABLE', diskFull: 'MEMORY_DISK_FULL', error: 'MEMORY_DB_ERROR' },
  what: 'the memory database',
  startingOverLoses: 'every saved memory is lost',
  whenFull: 'nothing was saved, the memories saved before are kept, and saving works again once the disk has room',
};

export interface NewRecord {
  kind: MemoryKind;
  text: string;
  sensitiveKinds: readonly string[];
  sourceTurn?: string;
  createdMs: number;
}

export interface StoredRow {
  id: number;
  kind: string;
  text: string;
  sensitivity: string;
  sensitive_kinds: string;
  source_turn: string | null;
  created_ms: number;
  checksum: string;
  vector: Buffer;
  vector_checksum: number;
}

export type ChecksumRow = Omit<StoredRow, 'vector'>;

export interface Change {
  seq: number;
  op: 'add' | 'forget' | 'rebuild';
  recordId: number | null;
}

/** A row's fields and its vector, as one check of its checksums found them. */
export interface CheckedRow {
  record: MemoryRecord;
  vector: Float32Array;
  vectorChecksum: number;
  /** The vector's bytes match its stored checksum. */
  vectorIntact: boolean;
  /** The stored checksums match the stored fields and vector. */
  intact: boolean;
}

/**
 * The memory database, `memory.sqlite`: WAL with synchronous=FULL, so a
 * save is on disk when its commit returns (a memory the user asked for is
 * worth the flush; tool-call audit rows are not, see state-db.ts). Every
 * write is one IMMEDIATE transaction: two processes take turns, the other
 * waits up to the busy timeout.
 */
export class MemoryRecords {
  private readonly statements: ReturnType<typeof prepare>;

  private constructor(readonly file: SqliteFile) {
    this.statements = file.use(prepare);
  }

  static open(dataDir: string, options: { busyTimeoutMs?: number } = {}): MemoryRecords {
    const file = openDatabase({
      path: join(dataDir, MEMORY_DB_FILE),
      identity: MEMORY_DB,
      migrations: MEMORY_MIGRATIONS,
      busyTimeoutMs: options.busyTimeoutMs,
      synchronous: 'FULL',
    });
    return new MemoryRecords(file);
  }

  get path(): string {
    return this.file.path;
  }

  /** `fn` in one IMMEDIATE transaction: all of it commits, or none. */
  write<T>(fn: () => T): T {
    return this.file.use((db) => db.transaction(fn).immediate());
  }

  /** Inserts a record and its `add` change; call inside `write`. */
  insert(input: NewRecord, vector: Float32Array): number {
    const sensitivity = input.sensitiveKinds.length > 0 ? 'sensitive' : 'none';
    const crc = vectorChecksum(vector);
    const sourceTurn = input.sourceTurn ?? null;
    const checksum = recordChecksum({ ...input, sensitivity, sourceTurn, vectorChecksum: crc });
    const { lastInsertRowid } = this.statements.insert.run(
      input.kind,
      input.text,
      sensitivity,
      JSON.stringify(input.sensitiveKinds),
      sourceTurn,
      input.createdMs,
      checksum,
      vectorBlob(vector),
      crc,
    );
    const id = Number(lastInsertRowid);
    this.statements.addChange.run('add', id);
    return id;
  }

  /** Deletes a record and logs its `forget` change; false when there was none. Call inside `write`. */
  delete(id: number): boolean {
    const { changes } = this.statements.delete.run(id);
    if (changes === 0) return false;
    this.statements.addChange.run('forget', id);
    return true;
  }

  /** Replaces a record's vector (a rebuild with another embedder) and re-signs it. Call inside `write`. */
  replaceVector(row: StoredRow, vector: Float32Array): void {
    const crc = vectorChecksum(vector);
    const record = toRecord(row);
    const checksum = recordChecksum({ ...record, sourceTurn: record.sourceTurn ?? null, vectorChecksum: crc });
    this.statements.replaceVector.run(vectorBlob(vector), crc, checksum, row.id);
  }

  /** Logs that every index must be rebuilt from the database. Call inside `write`. */
  markRebuilt(): void {
    this.statements.addChange.run('rebuild', null);
  }

  row(id: number): StoredRow | undefined {
    return this.file.use(() => this.statements.row.get(id));
  }

  /** Every row's fields and checksums, without the vectors, lowest id first. */
  *checksumRows(): Generator<ChecksumRow> {
    yield* this.file.use(() => this.statements.checksumRows.iterate());
  }

  /** `fn` in one read transaction: everything it reads is from one moment, whatever other processes write. */
  read<T>(fn: () => T): T {
    return this.file.use((db) => db.transaction(fn).deferred());
  }

  /** Every row, lowest id first, without holding them all at once. */
  *rows(): Generator<StoredRow> {
    yield* this.file.use(() => this.statements.allRows.iterate());
  }

  /** The highest record id there is (0 when none). */
  maxId(): number {
    return this.file.use(() => (this.statements.maxId.pluck().get() as number | null) ?? 0);
  }

  count(): number {
    return this.file.use(() => this.statements.count.pluck().get() as number);
  }

  /** Newest first. */
  list(kind: MemoryKind | undefined, limit: number): StoredRow[] {
    return this.file.use(() => (kind === undefined ? this.statements.listAll.all(limit) : this.statements.listKind.all(kind, limit)));
  }

  changesSince(seq: number): Change[] {
    return this.file.use(() => this.statements.changesSince.all(seq)).map((c) => ({ seq: c.seq, op: c.op, recordId: c.record_id }));
  }

  lastChangeSeq(): number {
    return this.file.use(() => (this.statements.lastSeq.pluck().get() as number | null) ?? 0);
  }

  meta(key: string): string | undefined {
    return this.file.use(() => (this.statements.getMeta.pluck().get(key) as string | undefined));
  }

  setMeta(key: string, value: string): void {
    this.file.use(() => this.statements.setMeta.run(key, value));
  }

  close(): void {
    this.file.close();
  }
}

/** Whether a row's stored checksum matches its fields and its vector's checksum (the vector itself not read). */
export function rowIntact(row: ChecksumRow): boolean {
  const record = toRecord(row);
  return recordChecksum({ ...record, sourceTurn: record.sourceTurn ?? null, vectorChecksum: row.vector_checksum }) === row.checksum;
}

/** A row checked against its checksums, with its vector as floats. */
export function checkRow(row: StoredRow): CheckedRow {
  const vector = floatsOf(row.vector);
  const record = toRecord(row);
  const crc = vectorChecksum(vector);
  const expected = recordChecksum({ ...record, sourceTurn: record.sourceTurn ?? null, vectorChecksum: row.vector_checksum });
  return { record, vector, vectorChecksum: row.vector_checksum, vectorIntact: crc === row.vector_checksum, intact: crc === row.vector_checksum && expected === row.checksum };
}

export function toRecord(row: ChecksumRow): MemoryRecord {
  const record: MemoryRecord = {
    id: row.id,
    kind: row.kind as MemoryKind,
    text: row.text,
    sensitivity: row.sensitivity === 'sensitive' ? 'sensitive' : 'none',
    sensitiveKinds: parseKinds(row.sensitive_kinds),
    createdMs: row.created_ms,
  };
  if (row.source_turn !== null) record.sourceTurn = row.source_turn;
  return record;
}

function parseKinds(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((k): k is string => typeof k === 'string') : [];
  } catch {
    return [];
  }
}

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A copy: the blob's buffer may be shared and unaligned. */
function floatsOf(blob: Buffer): Float32Array {
  const out = new Float32Array(Math.floor(blob.byteLength / 4));
  new Uint8Array(out.buffer).set(blob.subarray(0, out.byteLength));
  return out;
}

interface ChangeRow {
  seq: number;
  op: Change['op'];
  record_id: number | null;
}

function prepare(db: SqliteFile['db']): {
  insert: Statement<unknown[]>;
  delete: Statement<[number]>;
  replaceVector: Statement<unknown[]>;
  addChange: Statement<[string, number | null]>;
  row: Statement<[number], StoredRow>;
  allRows: Statement<[], StoredRow>;
  checksumRows: Statement<[], ChecksumRow>;
  count: Statement<[]>;
  maxId: Statement<[]>;
  listAll: Statement<[number], StoredRow>;
  listKind: Statement<[string, number], StoredRow>;
  changesSince: Statement<[number], ChangeRow>;
  lastSeq: Statement<[]>;
  getMeta: Statement<[string]>;
  setMeta: Statement<[string, string]>;
} {
  return {
    insert: db.prepare(
      `INSERT INTO records (kind, text, sensitivity, sensitive_kinds, source_turn, created_ms, checksum, vector, vector_checksum)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    delete: db.prepare('DELETE FROM records WHERE id = ?'),
    replaceVector: db.prepare('UPDATE records SET vector = ?, vector_checksum = ?, checksum = ? WHERE id = ?'),
    addChange: db.prepare('INSERT INTO changes (op, record_id) VALUES (?, ?)'),
    row: db.prepare('SELECT * FROM records WHERE id = ?'),
    allRows: db.prepare('SELECT * FROM records ORDER BY id'),
    checksumRows: db.prepare(
      'SELECT id, kind, text, sensitivity, sensitive_kinds, source_turn, created_ms, checksum, vector_checksum FROM records ORDER BY id',
    ),
    count: db.prepare('SELECT count(*) FROM records'),
    maxId: db.prepare('SELECT max(id) FROM records'),
    listAll: db.prepare('SELECT * FROM records ORDER BY created_ms DESC, id DESC LIMIT ?'),
    listKind: db.prepare('SELECT * FROM records WHERE kind = ? ORDER BY created_ms DESC, id DESC LIMIT ?'),
    changesSince: db.prepare('SELECT seq, op, record_id FROM changes WHERE seq > ? ORDER BY seq'),
    lastSeq: db.prepare('SELECT max(seq) FROM changes'),
    getMeta: db.prepare('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
  };
}
