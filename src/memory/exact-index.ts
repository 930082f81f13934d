import { faiss, type FaissIndex } from './faiss-binding.js';
import { idMapBuffer, readIdMap } from './faiss-format.js';
import type { IndexEntries, IndexHit, VectorIndex } from './vector-index.js';

/**
 * Exact search: a FAISS IndexIDMap over an IndexFlatIP, keyed by record id.
 * Every query reads every vector (with Debian's FAISS, about 2 ms for 10k
 * vectors of 256 dimensions, 18 ms for 100k), so large stores move to the
 * graph index.
 */
export class ExactIndex implements VectorIndex {
  readonly kind = 'exact' as const;

  private constructor(
    readonly dim: number,
    private readonly index: FaissIndex,
  ) {}

  static empty(dim: number): ExactIndex {
    return ExactIndex.fromBuffer(dim, idMapBuffer(dim, [], new Float32Array(0)));
  }

  /** From faiss's serialization of such an index (a snapshot). */
  static fromBuffer(dim: number, buffer: Buffer): ExactIndex {
    return new ExactIndex(dim, faiss().Index.fromBuffer(buffer));
  }

  get size(): number {
    return this.index.ntotal();
  }

  /** `vectors` holds ids.length x dim floats. */
  add(ids: readonly number[], vectors: Float32Array): void {
    if (ids.length === 0) return;
    this.index.mergeFrom(faiss().Index.fromBuffer(idMapBuffer(this.dim, ids, vectors)));
  }

  remove(ids: readonly number[]): void {
    if (ids.length > 0) this.index.removeIds([...ids]);
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

  snapshot(): { faiss: Buffer } {
    return { faiss: this.index.toBuffer() };
  }

  entries(): IndexEntries {
    const contents = readIdMap(this.index.toBuffer());
    return { dim: contents.dim, ids: contents.ids.map(Number), vectorBytes: contents.vectorBytes };
  }
}
