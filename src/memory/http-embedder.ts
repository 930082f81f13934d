import OpenAI, { APIConnectionError, APIError } from 'openai';
import { AppError } from '../errors/index.js';
import { REDACTED, redactSecrets } from '../secrets/index.js';
import { withDeadline } from '../deadline/index.js';
import {
  MEMORY_EMBEDDER_BAD_OPTIONS,
  MEMORY_EMBEDDER_FAILED,
  embedCancelled,
  normalizeInPlace,
  type Embedder,
} from './embedder.js';

export interface HttpEmbedderOptions {
  /** The API base, e.g. `http://localhost:8181/v1`; `/embeddings` is added. */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer`; never shown in an error. */
  apiKey?: string;
  /** For the whole request, body included; 30000 by default. */
  timeoutMs?: number;
}

export const HTTP_EMBEDDER_DEFAULT_TIMEOUT_MS = 30_000;

/** The server's own words are quoted up to this many characters. */
const BODY_CLIP = 200;

/**
 * A client for an OpenAI-compatible embeddings endpoint (llama-server
 * `--embeddings`, Ollama, vLLM, OpenAI): `POST {url}/embeddings` with
 * `{ model, input: [texts], encoding_format: "float" }`, sent by the openai
 * SDK the LLM client uses too (no retries: the caller decides). The reply is
 * read raw and checked here, since servers differ: vectors are normalized,
 * as not every server does; the dimension is learnt from the first reply
 * and must not change afterwards, since stored vectors would stop being
 * comparable.
 */
export class HttpEmbedder implements Embedder {
  readonly id: string;
  private learntDim: number | undefined;
  private readonly url: string;
  private readonly endpoint: string;
  private readonly model: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly client: OpenAI;

  constructor(options: HttpEmbedderOptions) {
    this.url = options.url.replace(/\/+$/, '');
    let parsed: URL;
    try {
      parsed = new URL(this.url);
    } catch {
      throw new AppError(MEMORY_EMBEDDER_BAD_OPTIONS, `the embedding server URL is not a URL: ${JSON.stringify(options.url)}`);
    }
    // fetch refuses such URLs, and refusing here keeps a password out of the id and every message.
    if (parsed.username !== '' || parsed.password !== '') {
      throw new AppError(MEMORY_EMBEDDER_BAD_OPTIONS, 'the embedding server URL must not hold a user or password: give the key as the API key instead');
    }
    const timeoutMs = options.timeoutMs ?? HTTP_EMBEDDER_DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new AppError(MEMORY_EMBEDDER_BAD_OPTIONS, `the embedding timeout must be a positive number of ms, not ${timeoutMs}`);
    }
    this.endpoint = `${this.url}/embeddings`;
    this.model = options.model;
    this.apiKey = options.apiKey === undefined || options.apiKey === '' ? undefined : options.apiKey;
    this.timeoutMs = timeoutMs;
    this.id = `openai/${this.url}/${this.model}`;
    this.client = new OpenAI({
      baseURL: this.url,
      // The SDK wants a key; without one no Authorization header is sent (defaultHeaders below).
      apiKey: this.apiKey ?? 'none',
      maxRetries: 0,
      timeout: timeoutMs,
      logLevel: 'off',
      organization: null,
      project: null,
      ...(this.apiKey === undefined ? { defaultHeaders: { authorization: null } } : {}),
    });
  }

  get dim(): number | undefined {
    return this.learntDim;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const what = `the embedding request to ${this.endpoint}`;
    const { signal } = options;
    if (signal?.aborted) throw embedCancelled(what, signal.reason);
    const deadline = withDeadline(signal, this.timeoutMs);
    try {
      const response = await this.client.embeddings
        .create({ model: this.model, input: [...texts], encoding_format: 'float' }, { signal: deadline.signal })
        .asResponse();
      return this.vectors(await response.text(), texts.length);
    } catch (error) {
      if (deadline.reason === 'cancelled') throw embedCancelled(what, signal?.reason);
      if (deadline.reason === 'timeout') {
        throw this.failed(`the embedding server at ${this.url} sent no complete answer within ${this.timeoutMs} ms`, undefined, true);
      }
      if (error instanceof AppError) throw error;
      if (error instanceof APIError && !(error instanceof APIConnectionError) && error.status !== undefined) throw this.httpError(error.status, serverWords(error));
      throw this.failed(`cannot reach the embedding server at ${this.url}: ${connectionDetail(error)}`, error, true);
    } finally {
      deadline.dispose();
    }
  }

  /** Checks the reply's shape, orders it by index and normalizes every vector. */
  private vectors(body: string, count: number): Float32Array[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      // Not quoted: a broken reply may hold the texts, which are the user's memories.
      throw this.failed(`the embedding server at ${this.url} sent a reply that is not JSON`);
    }
    const data = (parsed as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw this.failed(`the embedding server at ${this.url} sent a reply without a "data" array`);
    if (data.length !== count) {
      throw this.failed(`the embedding server at ${this.url} sent ${data.length} embeddings for ${count} texts`);
    }
    const out: Array<Float32Array | undefined> = new Array(count).fill(undefined);
    data.forEach((item: unknown, position) => {
      const { embedding, index = position } = (item ?? {}) as { embedding?: unknown; index?: unknown };
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count || out[index as number] !== undefined) {
        throw this.failed(`the embedding server at ${this.url} sent a missing, repeated or out-of-range index at position ${position}`);
      }
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw this.failed(`the embedding server at ${this.url} sent an embedding at position ${position} that is not a list of numbers`);
      }
      out[index as number] = normalizeInPlace(Float32Array.from(embedding as number[]));
    });
    const vectors = out as Float32Array[];
    const dim = this.learntDim ?? (vectors[0] as Float32Array).length;
    vectors.forEach((vector, index) => {
      if (vector.length !== dim) {
        const against = this.learntDim === undefined ? 'embedding 0 has' : 'earlier replies had';
        throw this.failed(`the embedding server at ${this.url} sent embedding ${index} with ${vector.length} dimensions; ${against} ${dim}`);
      }
    });
    this.learntDim = dim;
    return vectors;
  }

  private httpError(status: number, body: string): AppError {
    // Scrubbed before clipping: a key cut in half by the clip would no longer match.
    const clipped = this.scrub(body).replace(/\s+/g, ' ').trim();
    const quoted = clipped.length > BODY_CLIP ? `${clipped.slice(0, BODY_CLIP)}...` : clipped;
    const retryable = status === 408 || status === 429 || status >= 500;
    return this.failed(`the embedding server at ${this.url} answered HTTP ${status}${quoted === '' ? '' : `: ${quoted}`}`, undefined, retryable);
  }

  /** Every message passes here: a server may echo the key, or a secret that was in a text. */
  private failed(message: string, cause?: unknown, retryable = false): AppError {
    return new AppError(MEMORY_EMBEDDER_FAILED, this.scrub(message), { cause, retryable });
  }

  private scrub(text: string): string {
    const clean = redactSecrets(text);
    return this.apiKey === undefined ? clean : clean.split(this.apiKey).join(REDACTED);
  }
}

/** What the server said with its error status: the SDK's message without the status it starts with. */
function serverWords(error: APIError): string {
  return error.message.replace(/^\d{3}\s*/, '').replace(/^status code \(no body\)$/, '');
}

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset by the server',
  UND_ERR_SOCKET: 'connection closed by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** Plain words for a fetch failure: fetch says only "fetch failed", the system code is in the cause chain. */
function connectionDetail(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return CONNECTION_CODES[code] ?? code;
    const errors = (current as { errors?: unknown }).errors;
    current = Array.isArray(errors) && errors.length > 0 ? errors[0] : (current as { cause?: unknown }).cause;
  }
  return error instanceof Error ? error.message : String(error);
}
