import { AppError } from '../errors/index.js';

/*
 * faiss's own serialization (faiss 1.7, impl/index_write.cpp) of the one
 * index kind used here: an IndexIDMap ("IxMp") over an IndexFlatIP ("IxFI").
 * faiss-node 0.5 has no add_with_ids, so vectors with the store's own ids go
 * in as a serialized IDMap (Index.fromBuffer, then mergeFrom); the same
 * layout lets start-up check every stored vector against the database
 * without asking faiss for it.
 *
 *   index header: fourcc, int32 d, int64 ntotal, int64 dummy, int64 dummy, uint8 is_trained, int32 metric
 *   IxMp: header, then the inner IxFI (header, uint64 count of floats, floats), then uint64 n, n x int64 ids
 */

const HEADER_BYTES = 4 + 4 + 8 + 8 + 8 + 1 + 4;
const METRIC_INNER_PRODUCT = 0;
// What faiss writes in the two unused header fields.
const DUMMY = 1n << 20n;

export interface IdMapContents {
  dim: number;
  count: number;
  /** count x dim float32, as bytes in the buffer (no copy). */
  vectorBytes: Uint8Array;
  ids: bigint[];
}

/** The serialized IDMap-over-FlatIP holding `vectors` (count x dim) under `ids`. */
export function idMapBuffer(dim: number, ids: readonly number[], vectors: Float32Array): Buffer {
  const count = ids.length;
  if (vectors.length !== count * dim) {
    throw new AppError('MEMORY_INDEX_ERROR', `${vectors.length} floats for ${count} vectors of ${dim} dimensions`);
  }
  const floatBytes = count * dim * 4;
  const buffer = Buffer.alloc(2 * HEADER_BYTES + 8 + floatBytes + 8 + 8 * count);
  let at = writeHeader(buffer, 0, 'IxMp', dim, count);
  at = writeHeader(buffer, at, 'IxFI', dim, count);
  buffer.writeBigUInt64LE(BigInt(count * dim), at);
  at += 8;
  buffer.set(new Uint8Array(vectors.buffer, vectors.byteOffset, floatBytes), at);
  at += floatBytes;
  buffer.writeBigUInt64LE(BigInt(count), at);
  at += 8;
  for (const id of ids) {
    buffer.writeBigInt64LE(BigInt(id), at);
    at += 8;
  }
  return buffer;
}

/** Reads back what idMapBuffer (or faiss's toBuffer of such an index) wrote; throws MEMORY_INDEX_CORRUPT otherwise. */
export function readIdMap(buffer: Uint8Array): IdMapContents {
  const view = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const outer = readHeader(view, 0, 'IxMp');
  const inner = readHeader(view, HEADER_BYTES, 'IxFI');
  if (inner.dim !== outer.dim || inner.count !== outer.count) corrupt('the IDMap and its flat index disagree on size');
  let at = 2 * HEADER_BYTES;
  const floats = need(view, at, 8) && Number(view.readBigUInt64LE(at));
  at += 8;
  if (floats !== outer.count * outer.dim) corrupt(`${floats} floats for ${outer.count} vectors of ${outer.dim} dimensions`);
  need(view, at, floats * 4);
  const vectorBytes = view.subarray(at, at + floats * 4);
  at += floats * 4;
  need(view, at, 8);
  const idCount = Number(view.readBigUInt64LE(at));
  at += 8;
  if (idCount !== outer.count) corrupt(`${idCount} ids for ${outer.count} vectors`);
  need(view, at, idCount * 8);
  const ids: bigint[] = new Array<bigint>(idCount);
  for (let i = 0; i < idCount; i++) ids[i] = view.readBigInt64LE(at + 8 * i);
  if (at + idCount * 8 !== view.length) corrupt('trailing bytes after the id map');
  return { dim: outer.dim, count: outer.count, vectorBytes, ids };
}

function writeHeader(buffer: Buffer, at: number, fourcc: string, dim: number, count: number): number {
  buffer.write(fourcc, at, 'latin1');
  buffer.writeInt32LE(dim, at + 4);
  buffer.writeBigInt64LE(BigInt(count), at + 8);
  buffer.writeBigInt64LE(DUMMY, at + 16);
  buffer.writeBigInt64LE(DUMMY, at + 24);
  buffer.writeUInt8(1, at + 32);
  buffer.writeInt32LE(METRIC_INNER_PRODUCT, at + 33);
  return at + HEADER_BYTES;
}

function readHeader(view: Buffer, at: number, fourcc: string): { dim: number; count: number } {
  need(view, at, HEADER_BYTES);
  const found = view.toString('latin1', at, at + 4);
  if (found !== fourcc) corrupt(`expected a faiss ${fourcc} index, found ${JSON.stringify(found)}`);
  const metric = view.readInt32LE(at + 33);
  if (metric !== METRIC_INNER_PRODUCT) corrupt(`metric ${metric}, expected inner product`);
  const dim = view.readInt32LE(at + 4);
  const count = Number(view.readBigInt64LE(at + 8));
  if (dim <= 0 || count < 0) corrupt(`impossible size: ${count} vectors of ${dim} dimensions`);
  return { dim, count };
}

function need(view: Buffer, at: number, bytes: number): true {
  if (at + bytes > view.length) corrupt('the index ends early');
  return true;
}

function corrupt(detail: string): never {
  throw new AppError('MEMORY_INDEX_CORRUPT', `the FAISS index is damaged: ${detail}`);
}

/*
 * An IndexHNSWFlat ("IHNf"): the index header, the HNSW graph (five
 * vectors, each a uint64 count and its items: assign_probas of doubles,
 * cum_nneighbor_per_level and levels of int32, offsets of uint64, neighbors
 * of int32; then int32 entry_point, max_level, efConstruction, efSearch,
 * upper_beam), then its storage, an IxFI flat index holding the vectors.
 */
const HNSW_VECTOR_ITEM_BYTES = [8, 4, 4, 8, 4];

/** A copy of a serialized HNSW index with another search depth (efSearch): faiss-node has no setter. */
export function withSearchDepth(buffer: Buffer, efSearch: number): Buffer {
  const copy = Buffer.from(buffer);
  copy.writeInt32LE(efSearch, hnswFieldsAt(copy) + 12);
  return copy;
}

export function searchDepthOf(buffer: Buffer): number {
  return buffer.readInt32LE(hnswFieldsAt(buffer) + 12);
}

/** The vectors of a serialized HNSW index, by position (its storage, at the end). */
export function readHnswVectors(buffer: Uint8Array): { dim: number; count: number; vectorBytes: Uint8Array } {
  const view = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const outer = readHeader(view, 0, 'IHNf');
  const storageAt = hnswFieldsAt(view) + 20;
  const inner = readHeader(view, storageAt, 'IxFI');
  if (inner.dim !== outer.dim || inner.count !== outer.count) corrupt('the HNSW graph and its storage disagree on size');
  let at = storageAt + HEADER_BYTES;
  need(view, at, 8);
  const floats = Number(view.readBigUInt64LE(at));
  at += 8;
  if (floats !== outer.count * outer.dim) corrupt(`${floats} floats for ${outer.count} vectors of ${outer.dim} dimensions`);
  need(view, at, floats * 4);
  if (at + floats * 4 !== view.length) corrupt('trailing bytes after the HNSW storage');
  return { dim: outer.dim, count: outer.count, vectorBytes: view.subarray(at, at + floats * 4) };
}

/** Where entry_point starts, after the five vectors of the graph. */
function hnswFieldsAt(view: Buffer): number {
  readHeader(view, 0, 'IHNf');
  let at = HEADER_BYTES;
  for (const itemBytes of HNSW_VECTOR_ITEM_BYTES) {
    need(view, at, 8);
    const n = Number(view.readBigUInt64LE(at));
    at += 8 + n * itemBytes;
  }
  need(view, at, 20);
  return at;
}
