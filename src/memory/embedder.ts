import { AppError } from '../errors/index.js';

/** Any failure to turn texts into vectors: server down, bad reply, dimension change, timeout. */
export const MEMORY_EMBEDDER_FAILED = 'MEMORY_EMBEDDER_FAILED';
/** The caller's signal aborted the request; not a fault of the embedder. */
export const MEMORY_EMBEDDER_CANCELLED = 'MEMORY_EMBEDDER_CANCELLED';
/** An embedder was built with options it cannot work with (a dimension of 0, a URL that is not one). */
export const MEMORY_EMBEDDER_BAD_OPTIONS = 'MEMORY_EMBEDDER_BAD_OPTIONS';

/**
 * Turns texts into vectors for similarity search. Every vector is L2-normalized,
 * so the inner product of two of them is their cosine; a text with nothing to
 * embed (empty, only punctuation) gives an all-zero vector, never NaN.
 */
export interface Embedder {
  /**
   * Names the model and every setting that shapes the vectors. Vectors made
   * under one id are not comparable with those made under another: a changed
   * id means the stored vectors must be rebuilt.
   */
  readonly id: string;
  /** Length of every vector; undefined until the first embed where the model decides it (HTTP). */
  readonly dim: number | undefined;
  /** One vector per text, in the order of `texts`. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

/**
 * Scales `vector` in place to unit length; an all-zero vector stays zero.
 * Sums in float64: float32 sums of many small squares lose the last digits.
 */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i += 1) {
    const x = vector[i] as number;
    sum += x * x;
  }
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i += 1) vector[i] = (vector[i] as number) * scale;
  return vector;
}

/** The error for a signal that aborted before or during an embed. */
export function embedCancelled(what: string, reason?: unknown): AppError {
  return new AppError(MEMORY_EMBEDDER_CANCELLED, `${what} was cancelled`, { cause: reason });
}
