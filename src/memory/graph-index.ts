import { faiss, type FaissIndex } from './faiss-binding.js';
import { readHnswVectors, withSearchDepth } from './faiss-format.js';
import type { IndexEntries, IndexHit, VectorIndex } from './vector-index.js';

/** FAISS's MetricType.METRIC_INNER_PRODUCT. */
const INNER_PRODUCT = 0;
/**
 * efSearch: candidates kept while walking the graph. FAISS's default (16)
 * misses near neighbours too often; on 20k made-up memories of the offline
 * embedder, 64 found 70% of the true 5 nearest, 256 found 93% (512: all) in
 * about 0.8 ms a search here.
 */
const SEARCH_DEPTH = 256;
/** Vectors handed to FAISS per add: each is copied into a JS array first (faiss-node takes no typed arrays). */
const ADD_BATCH = 4096;

/**
 * Approximate search for large stores: a FAISS IndexHNSWFlat (a graph over
 * the vectors, M = 32). FAISS's HNSW can neither take ids nor remove, so a
 * vector's position is mapped to its record here, and a forgotten memory's
 * position is marked free (a tombstone) until the next rebuild from the
 * database. Adding costs a few milliseconds per vector; a search walks a
 * few thousand vectors instead of all of them.
 */
export class GraphIndex implements VectorIndex {
  readonly kind = 'graph' as const;
  private readonly positionOf = new Map<number, number>();
  private tombstones = 0;

  private constructor(
    readonly dim: number,
    private readonly index: FaissIndex,
    /** Position -> record id, or -1 once forgotten. */
    private readonly positions: number[],
  ) {
    positions.forEach((id, position) => {
      if (id >= 0) this.positionOf.set(id, position);
      else this.tombstones += 1;
    });
  }

  static empty(dim: number): GraphIndex {
    const fresh = faiss().Index.fromFactory(dim, 'HNSW32,Flat', INNER_PRODUCT);
    return GraphIndex.fromBuffer(dim, withSearchDepth(fresh.toBuffer(), SEARCH_DEPTH), []);
  }

  /** From a snapshot: faiss's serialization and the record of each position. */
  static fromBuffer(dim: number, buffer: Buffer, positions: number[]): GraphIndex {
    const index = faiss().Index.fromBuffer(buffer);
    if (index.ntotal() !== positions.length) throw new RangeError(`${positions.length} positions for ${index.ntotal()} vectors`);
    return new GraphIndex(dim, index, [...positions]);
  }

  get size(): number {
    return this.positionOf.size;
  }

  add(ids: readonly number[], vectors: Float32Array): void {
    for (let start = 0; start < ids.length; start += ADD_BATCH) {
      const end = Math.min(ids.length, start + ADD_BATCH);
      this.index.add(Array.from(vectors.subarray(start * this.dim, end * this.dim)));
      for (let i = start; i < end; i++) {
        const id = ids[i] as number;
        this.positionOf.set(id, this.positions.length);
        this.positions.push(id);
      }
    }
  }

  remove(ids: readonly number[]): void {
    for (const id of ids) {
      const position = this.positionOf.get(id);
      if (position === undefined) continue;
      this.positions[position] = -1;
      this.positionOf.delete(id);
      this.tombstones += 1;
    }
  }

  search(query: Float32Array, k: number): IndexHit[] {
    // Forgotten positions may come first: ask for enough to leave k.
    const n = Math.min(this.positions.length, k + this.tombstones);
    if (n <= 0 || this.size === 0) return [];
    const { distances, labels } = this.index.search(Array.from(query), n);
    const hits: IndexHit[] = [];
    for (let i = 0; i < labels.length && hits.length < k; i++) {
      const label = labels[i] as number;
      const id = label >= 0 ? this.positions[label] : undefined;
      if (id !== undefined && id >= 0) hits.push({ id, score: distances[i] as number });
    }
    return hits;
  }

  snapshot(): { faiss: Buffer; positions: number[] } {
    return { faiss: this.index.toBuffer(), positions: [...this.positions] };
  }

  entries(): IndexEntries {
    return liveEntries(this.dim, this.positions, readHnswVectors(this.index.toBuffer()).vectorBytes);
  }
}

/** The live positions' ids and vectors, packed. */
export function liveEntries(dim: number, positions: readonly number[], vectorBytes: Uint8Array): IndexEntries {
  const stride = dim * 4;
  const ids: number[] = [];
  const live = positions.filter((id) => id >= 0).length;
  const packed = new Uint8Array(live * stride);
  positions.forEach((id, position) => {
    if (id < 0) return;
    packed.set(vectorBytes.subarray(position * stride, (position + 1) * stride), ids.length * stride);
    ids.push(id);
  });
  return { dim, ids, vectorBytes: packed };
}
