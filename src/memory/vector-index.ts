import { faiss, type FaissIndex } from './faiss-binding.js';
import { idMapBuffer } from './faiss-format.js';

export interface IndexHit {
  id: number;
  /** Inner product of unit vectors: cosine similarity. */
  score: number;
}

/**
 * The vectors of the memories in a FAISS IndexIDMap over an IndexFlatIP,
 * keyed by record id: exact search (at 100k vectors of 256 dimensions a
 * flat scan is a few milliseconds, and needs no training).
 */
export class VectorIndex {
  private constructor(
    readonly dim: number,
    private readonly index: FaissIndex,
  ) {}

  static empty(dim: number): VectorIndex {
    return VectorIndex.fromBuffer(dim, idMapBuffer(dim, [], new Float32Array(0)));
  }

  /** From faiss's serialization of such an index (a snapshot). */
  static fromBuffer(dim: number, buffer: Buffer): VectorIndex {
    return new VectorIndex(dim, faiss().Index.fromBuffer(buffer));
  }

  get size(): number {
    return this.index.ntotal();
  }

  /** `vectors` holds ids.length x dim floats. */
  add(ids: readonly number[], vectors: Float32Array): void {
    if (ids.length === 0) return;
    this.index.mergeFrom(faiss().Index.fromBuffer(idMapBuffer(this.dim, ids, vectors)));
  }

  remove(ids: readonly number[]): number {
    return ids.length === 0 ? 0 : this.index.removeIds([...ids]);
  }

  /** The `k` nearest by inner product, best first (fewer when the index holds fewer). */
  search(query: Float32Array, k: number): IndexHit[] {
    const n = Math.min(k, this.size);
    if (n <= 0) return [];
    const { distances, labels } = this.index.search(Array.from(query), n);
    const hits: IndexHit[] = [];
    for (let i = 0; i < labels.length; i++) {
      const id = labels[i] as number;
      if (id >= 0) hits.push({ id, score: distances[i] as number });
    }
    return hits;
  }

  /** faiss's own serialization, for a snapshot. */
  toBuffer(): Buffer {
    return this.index.toBuffer();
  }
}
