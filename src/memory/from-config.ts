import type { Config } from '../config/index.js';
import type { Embedder } from './embedder.js';
import { HashedEmbedder } from './hashed-embedder.js';
import { HttpEmbedder } from './http-embedder.js';

/** `[memory] enabled`, unless OWNER_MEMORY_ENABLED says otherwise (0 off, 1 on). */
export function memoryEnabled(config: Config, env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.OWNER_MEMORY_ENABLED;
  if (flag === '0') return false;
  if (flag === '1') return true;
  return config.memory.enabled;
}

/**
 * `[memory.embeddings]`: the endpoint when a url is set, else the offline
 * hashed embedder. The endpoint's key, if it needs one, comes from
 * DESKTOP_ASSISTANT_EMBEDDINGS_API_KEY (never from the config file).
 */
export function embedderFromConfig(config: Config, env: NodeJS.ProcessEnv = process.env): Embedder {
  const { url, model, timeout } = config.memory.embeddings;
  if (url === '') return new HashedEmbedder();
  const apiKey = env.DESKTOP_ASSISTANT_EMBEDDINGS_API_KEY;
  return new HttpEmbedder({ url, model, timeoutMs: timeout.ms, ...(apiKey ? { apiKey } : {}) });
}
