import { createRequire } from 'node:module';
import { AppError, messageOf } from '../errors/index.js';

/** The part of faiss-node (0.5) this project uses. */
export interface FaissIndex {
  ntotal(): number;
  getDimension(): number;
  search(x: number[], k: number): { distances: number[]; labels: number[] };
  toBuffer(): Buffer;
  add(x: number[]): void;
  mergeFrom(other: FaissIndex): void;
  removeIds(ids: number[]): number;
}

export interface FaissModule {
  Index: { fromBuffer(buffer: Buffer): FaissIndex; fromFactory(dim: number, description: string, metric: number): FaissIndex };
}

let loaded: FaissModule | undefined;

/**
 * faiss-node's native addon, built by the set-up against Debian's libfaiss
 * (scripts/build-faiss-node.sh). Loaded on first use so that a missing
 * build is one clear error from the memory server, not a crash at import.
 */
export function faiss(): FaissModule {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('faiss-node') as FaissModule;
    return loaded;
  } catch (error) {
    throw new AppError(
      'MEMORY_FAISS_UNAVAILABLE',
      `faiss-node's native addon cannot be loaded (${messageOf(error)}). ` +
        'It is built by the set-up against Debian\'s libfaiss-dev: run `bash scripts/setup.sh` (or `npm test` / `npm start`), ' +
        'or turn memory off with `[memory] enabled = false`.',
      { cause: error },
    );
  }
}
