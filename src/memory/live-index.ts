import { crc32 } from 'node:zlib';
import { isAppError, messageOf } from '../errors/index.js';
import { logEvent, type LogSink } from '../log/index.js';
import { ExactIndex } from './exact-index.js';
import { readHnswVectors, readIdMap } from './faiss-format.js';
import { GraphIndex } from './graph-index.js';
import { readSnapshot, removeSnapshot, writeSnapshot } from './index-snapshot.js';
import { checkRow, rowIntact, type Change, type MemoryRecords, type StoredRow } from './records.js';
import type { ProgressListener } from './progress.js';
import type { MemoryHealth } from './types.js';
import type { IndexHit, VectorIndex } from './vector-index.js';

const REBUILD_ADVICE = 'run `desktop-assistant memory rebuild`';
/** Vectors added to FAISS in one merge while loading. */
const LOAD_BATCH = 2048;

/**
 * The FAISS index of one process, kept equal to the database: loaded from
 * the last snapshot plus the changes after it, checked against every record
 * at start-up, and brought up to date with the changes other processes made
 * before each use. Holds only vectors that match their records; a record
 * whose vector is missing or differs is left out (never returned) and is a
 * health problem until a rebuild.
 */
export class LiveIndex {
  private vectors: VectorIndex | undefined;
  /** Record id -> CRC-32 of the vector held for it: what FAISS holds, known without asking it. */
  private readonly indexed = new Map<number, number>();
  private appliedSeq = 0;
  private sinceSnapshot = 0;
  private found: string[] = [];
  private readonly notes: string[] = [];

  constructor(
    private readonly records: MemoryRecords,
    private readonly dataDir: string,
    private readonly embedderId: string,
    /** Past this many vectors, exact search gives way to the graph (`[memory] exact_search_max`). */
    private readonly exactSearchMax: number,
    private readonly log: LogSink,
  ) {}

  /** Start-up: the snapshot when there is a usable one, the changes after it, then the check against the database. */
  load(onProgress?: ProgressListener): void {
    const loaded = this.loadSnapshot();
    if (!loaded) {
      this.reloadAll(onProgress);
      if (this.indexed.size > 0) this.snapshot();
      return;
    }
    this.sync();
    this.verify();
  }

  /** Applies the changes made since the last call, by this process or another. */
  sync(): void {
    const changes = this.records.changesSince(this.appliedSeq);
    if (changes.length === 0) return;
    if (changes.some((c) => c.op === 'rebuild')) {
      this.reloadAll();
      return;
    }
    this.apply(changes);
  }

  search(query: Float32Array, n: number): IndexHit[] {
    return this.vectors?.search(query, n) ?? [];
  }

  has(id: number): boolean {
    return this.indexed.has(id);
  }

  get size(): number {
    return this.indexed.size;
  }

  get dim(): number | undefined {
    return this.vectors?.dim;
  }

  /** Writes a snapshot once `every` changes have gone by without one. */
  snapshotIfDue(every: number): void {
    if (this.sinceSnapshot >= every) this.snapshot();
  }

  /** Writes a snapshot when any change went by since the last one (on close). */
  snapshotIfChanged(): void {
    if (this.sinceSnapshot > 0) this.snapshot();
  }

  /** The problems found, with the advice to rebuild; none when the index matches the records. */
  problems(): string[] {
    return this.found.length > 0 ? [...this.found, REBUILD_ADVICE] : [];
  }

  /** The full picture, record count included: a count(*) reads the whole table (about 50 ms at 100k), so not per search. */
  health(): MemoryHealth {
    const problems = this.problems();
    return { ok: problems.length === 0, records: this.records.count(), indexed: this.indexed.size, verified: this.indexed.size, index: this.vectors?.kind ?? 'none', problems, notes: [...this.notes] };
  }

  /** The whole index again from the database's vectors, as of one moment; clears the problems a reload fixes. */
  reloadAll(onProgress?: ProgressListener): void {
    this.vectors = undefined;
    this.indexed.clear();
    this.found = [];
    let damaged = 0;
    this.records.read(() => {
      this.appliedSeq = this.records.lastChangeSeq();
      const total = onProgress ? this.records.count() : 0;
      let done = 0;
      if (total > 0) onProgress?.({ task: 'indexing', done, total });
      let batch: StoredRow[] = [];
      const addBatch = (): void => {
        damaged += this.addRows(batch);
        done += batch.length;
        batch = [];
        if (total > 0) onProgress?.({ task: 'indexing', done: Math.min(done, total), total });
      };
      for (const row of this.records.rows()) {
        batch.push(row);
        if (batch.length >= LOAD_BATCH) addBatch();
      }
      if (batch.length > 0 || done === 0) addBatch();
    });
    if (damaged > 0) this.found.push(`${damaged} records in the database do not match their checksums`);
    this.sinceSnapshot = 1;
  }

  private snapshot(): void {
    if (!this.vectors) {
      // No vectors (an emptied or new database): a snapshot left from before would be loaded at the next start as records that are gone.
      try {
        removeSnapshot(this.dataDir);
        this.sinceSnapshot = 0;
      } catch (error) {
        logEvent('warn', 'memory_snapshot_failed', { error: messageOf(error) }, this.log);
      }
      return;
    }
    try {
      const header = { kind: this.vectors.kind, embedder: this.embedderId, dim: this.vectors.dim, seq: this.appliedSeq, count: this.indexed.size };
      writeSnapshot(this.dataDir, header, this.vectors.snapshot());
      this.sinceSnapshot = 0;
    } catch (error) {
      // The database has every save: a snapshot that fails costs start-up time, not data.
      logEvent('warn', 'memory_snapshot_failed', { error: messageOf(error) }, this.log);
    }
  }

  /** False when there is no usable snapshot (none, damaged, or from another embedder). */
  private loadSnapshot(): boolean {
    try {
      const snapshot = readSnapshot(this.dataDir);
      if (!snapshot) return false;
      if (snapshot.header.embedder !== this.embedderId) {
        this.note(`the index snapshot came from embedder ${snapshot.header.embedder}; it was rebuilt from the database`);
        return false;
      }
      const { header, positions, faiss } = snapshot;
      let ids: number[];
      let vectorBytes: Uint8Array;
      if (header.kind === 'graph') {
        ({ vectorBytes } = readHnswVectors(faiss));
        ids = positions;
        this.vectors = GraphIndex.fromBuffer(header.dim, faiss, positions);
      } else {
        const contents = readIdMap(faiss);
        ({ vectorBytes } = contents);
        ids = contents.ids.map(Number);
        this.vectors = ExactIndex.fromBuffer(header.dim, faiss);
      }
      const stride = header.dim * 4;
      ids.forEach((id, i) => {
        if (id >= 0) this.indexed.set(id, crc32(vectorBytes.subarray(i * stride, (i + 1) * stride)));
      });
      this.appliedSeq = snapshot.header.seq;
      return true;
    } catch (error) {
      if (!isAppError(error, 'MEMORY_INDEX_CORRUPT') && !(error instanceof RangeError)) throw error;
      this.vectors = undefined;
      this.indexed.clear();
      this.note(`${messageOf(error)}; it was rebuilt from the database`);
      return false;
    }
  }

  /** Every record against the index: the same ids, and each vector the one its record names. */
  private verify(): void {
    let missing = 0;
    let differing = 0;
    let damaged = 0;
    const seen = new Set<number>();
    const drop: number[] = [];
    this.records.read(() => {
      for (const row of this.records.checksumRows()) {
        seen.add(row.id);
        const held = this.indexed.get(row.id);
        if (!rowIntact(row)) {
          damaged += 1;
          if (held !== undefined) drop.push(row.id);
        } else if (held === undefined) {
          missing += 1;
        } else if (held !== row.vector_checksum) {
          differing += 1;
          drop.push(row.id);
        }
      }
    });
    const extra = [...this.indexed.keys()].filter((id) => !seen.has(id));
    this.removeIds([...drop, ...extra]);
    const mismatches: string[] = [];
    if (missing > 0) mismatches.push(`${missing} records are not in the index`);
    if (differing > 0) mismatches.push(`${differing} records have a different vector in the index`);
    if (damaged > 0) mismatches.push(`${damaged} records in the database do not match their checksums`);
    if (extra.length > 0) mismatches.push(`${extra.length} vectors in the index have no record`);
    this.found.push(...mismatches);
    if (mismatches.length > 0) logEvent('error', 'memory_index_mismatch', { problems: mismatches, advice: REBUILD_ADVICE }, this.log);
  }

  private apply(changes: Change[]): void {
    let adds: StoredRow[] = [];
    let damaged = 0;
    for (const change of changes) {
      if (change.recordId === null) continue;
      if (change.op === 'add') {
        const row = this.indexed.has(change.recordId) ? undefined : this.records.row(change.recordId);
        // No row: forgotten since; it is not indexed either way.
        if (row) adds.push(row);
      } else {
        damaged += this.addRows(adds);
        adds = [];
        this.removeIds([change.recordId]);
      }
    }
    damaged += this.addRows(adds);
    if (damaged > 0) this.found.push(`${damaged} records in the database do not match their checksums`);
    this.appliedSeq = changes[changes.length - 1]?.seq ?? this.appliedSeq;
    this.sinceSnapshot += changes.length;
  }

  /** Adds the intact rows' vectors; answers how many were damaged (left out). */
  private addRows(rows: StoredRow[]): number {
    const ids: number[] = [];
    const crcs: number[] = [];
    const parts: Float32Array[] = [];
    let damaged = 0;
    for (const row of rows) {
      const checked = checkRow(row);
      const dim = this.vectors?.dim ?? parts[0]?.length ?? checked.vector.length;
      if (!checked.intact || checked.vector.length !== dim || dim === 0) {
        damaged += 1;
        continue;
      }
      ids.push(row.id);
      crcs.push(checked.vectorChecksum);
      parts.push(checked.vector);
    }
    if (ids.length === 0) return damaged;
    const dim = parts[0]?.length ?? 0;
    const flat = new Float32Array(ids.length * dim);
    parts.forEach((part, i) => flat.set(part, i * dim));
    this.vectors ??= ExactIndex.empty(dim);
    this.vectors.add(ids, flat);
    ids.forEach((id, i) => this.indexed.set(id, crcs[i] as number));
    this.moveToGraphWhenLarge();
    return damaged;
  }

  /** Once, when the store outgrows exact search: every vector into a graph index (seconds per 10k vectors). */
  private moveToGraphWhenLarge(): void {
    if (this.vectors?.kind !== 'exact' || this.vectors.size <= this.exactSearchMax) return;
    const started = Date.now();
    const { dim, ids, vectorBytes } = this.vectors.entries();
    const floats = new Float32Array(vectorBytes.byteLength / 4);
    new Uint8Array(floats.buffer).set(vectorBytes);
    const graph = GraphIndex.empty(dim);
    graph.add(ids, floats);
    this.vectors = graph;
    this.sinceSnapshot += 1;
    logEvent('info', 'memory_index_graph', { vectors: ids.length, ms: Date.now() - started }, this.log);
  }

  private removeIds(ids: number[]): void {
    const held = ids.filter((id) => this.indexed.has(id));
    if (held.length === 0) return;
    this.vectors?.remove(held);
    for (const id of held) this.indexed.delete(id);
  }

  private note(text: string): void {
    this.notes.push(text);
    logEvent('warn', 'memory_index_recovered', { detail: text }, this.log);
  }
}
