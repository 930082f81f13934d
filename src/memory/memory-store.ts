import { AppError } from '../errors/index.js';
import type { LogSink } from '../log/index.js';
import type { Embedder } from './embedder.js';
import { removeStaleTemporaries } from './index-snapshot.js';
import { LiveIndex } from './live-index.js';
import type { ProgressListener } from './progress.js';
import { rebuildVectors, type RebuildReport } from './rebuild.js';
import { MemoryRecords, toRecord } from './records.js';
import { detectSensitive } from './sensitivity.js';
import type { MemoryHealth, MemoryKind, MemoryRecord, ScoredMemory } from './types.js';

/** Longer texts are notes, not memories: the model is told to save one fact at a time. */
export const MAX_MEMORY_CHARS = 2000;
const META_EMBEDDER = 'embedder';
const DEFAULT_SNAPSHOT_EVERY = 1000;
const DEFAULT_EXACT_SEARCH_MAX = 20_000;

export interface MemoryStoreOptions {
  dataDir: string;
  embedder: Embedder;
  /** Changes between index snapshots on disk (`[memory] snapshot_every`). */
  snapshotEvery?: number;
  /** Records up to which search is exact; past it, a graph index (`[memory] exact_search_max`). */
  exactSearchMax?: number;
  busyTimeoutMs?: number;
  clock?: () => number;
  log?: LogSink;
  /** Reports the long work at open: re-embedding after an embedder change, building the index with no usable snapshot. */
  onProgress?: ProgressListener;
}

export interface SaveRequest {
  text: string;
  kind: MemoryKind;
  sourceTurn?: string;
  /** Set only from the router's word that the user confirmed storing sensitive content. */
  userConfirmedSensitive?: boolean;
}

export interface SearchRequest {
  query: string;
  k: number;
  kind?: MemoryKind;
  /** Leave out memories less similar than this (cosine). */
  minScore?: number;
}

/**
 * Long-term memory: records in SQLite (memory.sqlite, the source of truth,
 * vectors included), searched through a FAISS index kept equal to it. A
 * save is durable when it returns; every process on the same data folder
 * sees the others' saves and forgets before its next operation; only
 * records whose vector in the index matches them are ever returned. On a
 * full disk a save or forget fails with MEMORY_DISK_FULL (retryable): its
 * transaction is rolled back whole, reads go on, and the first write after
 * room is made works, with no reopen. A snapshot that cannot be written is
 * logged and leaves the one before (the next start replays what it lacks).
 */
export class MemoryStore {
  private readonly clock: () => number;
  private readonly snapshotEvery: number;

  private constructor(
    private readonly records: MemoryRecords,
    private readonly index: LiveIndex,
    private readonly embedder: Embedder,
    options: MemoryStoreOptions,
  ) {
    this.clock = options.clock ?? Date.now;
    this.snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
  }

  /**
   * Opens (creating when missing) the store in `dataDir`. A store whose
   * vectors came from another embedder is rebuilt first: vectors are never mixed.
   */
  static async open(options: MemoryStoreOptions): Promise<MemoryStore> {
    const log = options.log ?? process.stderr;
    const records = MemoryRecords.open(options.dataDir, { busyTimeoutMs: options.busyTimeoutMs });
    try {
      removeStaleTemporaries(options.dataDir);
      const stored = records.meta(META_EMBEDDER);
      if (stored !== options.embedder.id) {
        const reason = `the embedder changed from ${stored ?? 'none'} to ${options.embedder.id}`;
        if (records.count() > 0) await rebuildVectors(records, options.embedder, { reason, log, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
        else records.write(() => records.setMeta(META_EMBEDDER, options.embedder.id));
      }
      const index = new LiveIndex(records, options.dataDir, options.embedder.id, options.exactSearchMax ?? DEFAULT_EXACT_SEARCH_MAX, log);
      index.load(options.onProgress);
      return new MemoryStore(records, index, options.embedder, options);
    } catch (error) {
      records.close();
      throw error;
    }
  }

  get path(): string {
    return this.records.path;
  }

  /** Saves one memory; refuses sensitive content the user has not confirmed (MEMORY_SENSITIVE_UNCONFIRMED). */
  async save(request: SaveRequest, options: { signal?: AbortSignal } = {}): Promise<MemoryRecord> {
    const text = request.text.trim();
    if (text.length === 0) throw new AppError('MEMORY_TEXT_EMPTY', 'there is nothing to remember: the text is empty');
    if (text.length > MAX_MEMORY_CHARS) {
      throw new AppError('MEMORY_TEXT_TOO_LONG', `a memory is at most ${MAX_MEMORY_CHARS} characters (this one has ${text.length}); save the fact itself`);
    }
    const sensitiveKinds = detectSensitive(text);
    if (sensitiveKinds.length > 0 && request.userConfirmedSensitive !== true) {
      throw new AppError(
        'MEMORY_SENSITIVE_UNCONFIRMED',
        `not saved: the text holds sensitive content (${sensitiveKinds.join(', ')}), which is kept only after the user confirms it`,
      );
    }
    const [vector] = await this.embedder.embed([text], options);
    if (!vector || !vector.some((x) => x !== 0)) {
      throw new AppError('MEMORY_TEXT_UNSEARCHABLE', 'not saved: the text has no words to find it by');
    }
    this.index.sync();
    if (this.index.dim !== undefined && vector.length !== this.index.dim) {
      throw new AppError('MEMORY_EMBEDDER_FAILED', `the embedder gave ${vector.length} dimensions; the index has ${this.index.dim}`);
    }
    const id = this.records.write(() => {
      const current = this.records.meta(META_EMBEDDER);
      if (current !== this.embedder.id) {
        throw new AppError('MEMORY_EMBEDDER_CHANGED', `the store's vectors now come from ${current ?? 'none'} (another process rebuilt it); restart to use it`);
      }
      return this.records.insert({ kind: request.kind, text, sensitiveKinds, sourceTurn: request.sourceTurn, createdMs: this.clock() }, vector);
    });
    this.index.sync();
    this.index.snapshotIfDue(this.snapshotEvery);
    const row = this.records.row(id);
    if (!row) throw new AppError('MEMORY_DB_ERROR', `memory ${id} vanished right after it was saved`);
    return toRecord(row);
  }

  /**
   * Saves many memories in one transaction (an import): all or none. Each
   * text is checked as `save` checks it; sensitive ones need the same confirmation.
   */
  async saveMany(requests: readonly SaveRequest[], options: { signal?: AbortSignal } = {}): Promise<number[]> {
    const checked = requests.map((request) => {
      const text = request.text.trim();
      if (text.length === 0 || text.length > MAX_MEMORY_CHARS) throw new AppError('MEMORY_TEXT_INVALID', `a memory is 1 to ${MAX_MEMORY_CHARS} characters`);
      const sensitiveKinds = detectSensitive(text);
      if (sensitiveKinds.length > 0 && request.userConfirmedSensitive !== true) {
        throw new AppError('MEMORY_SENSITIVE_UNCONFIRMED', `not saved: a text holds sensitive content (${sensitiveKinds.join(', ')})`);
      }
      return { ...request, text, sensitiveKinds };
    });
    const vectors = await this.embedder.embed(checked.map((c) => c.text), options);
    const createdMs = this.clock();
    const ids = this.records.write(() =>
      checked.map((c, i) => this.records.insert({ kind: c.kind, text: c.text, sensitiveKinds: c.sensitiveKinds, sourceTurn: c.sourceTurn, createdMs }, vectors[i] as Float32Array)),
    );
    this.index.sync();
    this.index.snapshotIfDue(this.snapshotEvery);
    return ids;
  }

  /** The `k` most similar verified memories, best first. */
  async search(request: SearchRequest, options: { signal?: AbortSignal } = {}): Promise<ScoredMemory[]> {
    this.index.sync();
    const k = Math.max(0, Math.trunc(request.k));
    if (k === 0 || this.index.size === 0 || request.query.trim() === '') return [];
    const [query] = await this.embedder.embed([request.query], options);
    if (!query || !query.some((x) => x !== 0)) return [];
    const minScore = request.minScore ?? -Infinity;
    // A kind filter is applied after the search: ask for more until k of that kind are found or nothing is left.
    let wanted = request.kind === undefined ? k : Math.min(this.index.size, k * 4);
    for (;;) {
      const hits = this.index.search(query, wanted);
      const found: ScoredMemory[] = [];
      for (const hit of hits) {
        if (hit.score < minScore) break;
        const row = this.records.row(hit.id);
        if (!row || (request.kind !== undefined && row.kind !== request.kind)) continue;
        found.push({ ...toRecord(row), score: hit.score });
        if (found.length === k) return found;
      }
      const exhausted = hits.length < wanted || wanted >= this.index.size || (hits.length > 0 && (hits[hits.length - 1]?.score ?? 0) < minScore);
      if (exhausted) return found;
      wanted = Math.min(this.index.size, wanted * 4);
    }
  }

  /** False when there is no memory with that id. A damaged record can be forgotten too. */
  forget(id: number): boolean {
    this.index.sync();
    const removed = this.records.write(() => this.records.delete(id));
    this.index.sync();
    this.index.snapshotIfDue(this.snapshotEvery);
    return removed;
  }

  /** Newest first; only verified memories. */
  list(request: { kind?: MemoryKind; limit: number }): MemoryRecord[] {
    this.index.sync();
    const limit = Math.max(1, Math.trunc(request.limit));
    const out: MemoryRecord[] = [];
    // Unverified rows are skipped, so read a little past the limit.
    for (const row of this.records.list(request.kind, limit + 100)) {
      if (!this.index.has(row.id)) continue;
      out.push(toRecord(row));
      if (out.length === limit) break;
    }
    return out;
  }

  /** Every vector again from the records (re-embedded where needed), then the index from them. */
  async rebuild(options: { signal?: AbortSignal; log?: LogSink; onProgress?: ProgressListener } = {}): Promise<RebuildReport> {
    const report = await rebuildVectors(this.records, this.embedder, { reason: 'asked for', ...options });
    this.index.reloadAll(options.onProgress);
    this.index.snapshotIfChanged();
    return report;
  }

  /** What is wrong with the index, if anything (cheap: for every search's answer). */
  problems(): string[] {
    this.index.sync();
    return this.index.problems();
  }

  health(): MemoryHealth {
    this.index.sync();
    return this.index.health();
  }

  /**
   * Writes a snapshot when anything changed since the last one (unless told
   * not to: a quick look from the command line leaves the files as they
   * were), then closes the database.
   */
  close(options: { snapshot?: boolean } = {}): void {
    try {
      if (options.snapshot !== false) this.index.snapshotIfChanged();
    } finally {
      this.records.close();
    }
  }
}
