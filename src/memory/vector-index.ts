export interface IndexHit {
  id: number;
  /** Inner product of unit vectors: cosine similarity. */
  score: number;
}

/** Every live vector of an index: ids[i]'s vector is bytes [i * dim * 4, (i + 1) * dim * 4). */
export interface IndexEntries {
  dim: number;
  ids: number[];
  vectorBytes: Uint8Array;
}

/** The vectors of the memories in FAISS, keyed by record id. */
export interface VectorIndex {
  readonly kind: 'exact' | 'graph';
  readonly dim: number;
  /** Vectors that searches can return. */
  readonly size: number;
  /** `vectors` holds ids.length x dim floats. */
  add(ids: readonly number[], vectors: Float32Array): void;
  remove(ids: readonly number[]): void;
  /** The `k` nearest by inner product, best first (fewer when the index holds fewer). */
  search(query: Float32Array, k: number): IndexHit[];
  /** faiss's own serialization, and for the graph index which record each position holds. */
  snapshot(): { faiss: Buffer; positions?: number[] };
  entries(): IndexEntries;
}
