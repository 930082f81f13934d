import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { AppError } from '../../errors/index.js';

/** The codes an `Llm` fails with; callers branch on these, never on the message. */
export const LLM_UNREACHABLE = 'LLM_UNREACHABLE';
export const LLM_HTTP_ERROR = 'LLM_HTTP_ERROR';
export const LLM_STREAM_BROKEN = 'LLM_STREAM_BROKEN';
export const LLM_CANCELLED = 'LLM_CANCELLED';

/** The server's own words are quoted up to this many characters. */
const SERVER_MESSAGE_LIMIT = 300;

/**
 * Turns SDK and network failures into AppErrors whose messages name the
 * server's URL (without any credentials in it) and never contain the API key.
 */
export class LlmErrors {
  readonly url: string;
  /** The API key and any password in the base URL: never shown. */
  private readonly secrets: string[];

  constructor(baseUrl: string, apiKey: string) {
    this.url = displayUrl(baseUrl);
    this.secrets = [apiKey === 'none' ? '' : apiKey, ...urlCredentials(baseUrl)].filter((secret) => secret.length >= 4);
  }

  cancelled(reason?: unknown): AppError {
    return new AppError(LLM_CANCELLED, 'the LLM request was cancelled', { cause: reason });
  }

  unreachable(detail: string, cause?: unknown): AppError {
    return new AppError(LLM_UNREACHABLE, this.clean(`cannot reach the LLM server at ${this.url}: ${detail}`), { cause, retryable: true });
  }

  /** fetch refuses a URL with a user or password in it, so such a URL is refused up front. */
  credentialsInUrl(baseUrl: string): AppError | undefined {
    if (urlCredentials(baseUrl).length === 0) return undefined;
    return new AppError(LLM_UNREACHABLE, `the LLM server URL ${this.url} must not hold a user or password: give the key as the API key instead`);
  }

  noModel(): AppError {
    return new AppError(LLM_UNREACHABLE, `the LLM server at ${this.url} lists no model: name one in the configuration (\`model\`)`);
  }

  noFirstToken(ms: number): AppError {
    return new AppError(LLM_UNREACHABLE, `the LLM server at ${this.url} sent no reply within ${ms} ms`, { retryable: true });
  }

  stalled(ms: number): AppError {
    return new AppError(LLM_STREAM_BROKEN, `the reply from the LLM server at ${this.url} stalled: nothing for ${ms} ms`, { retryable: true });
  }

  unfinished(): AppError {
    return new AppError(LLM_STREAM_BROKEN, `the reply from the LLM server at ${this.url} ended before it was complete (no finish reason)`, { retryable: true });
  }

  /** A failure before the response: no connection, a timeout, or an HTTP error status. */
  request(error: unknown, what = 'the chat request'): AppError {
    if (error instanceof APIUserAbortError) return this.cancelled(error);
    if (error instanceof APIConnectionTimeoutError) return this.unreachable(`no answer to ${what} in time`);
    if (error instanceof APIConnectionError) {
      const system = innermost(error);
      return this.unreachable(connectionDetail(error), system === error ? undefined : system);
    }
    if (error instanceof APIError && error.status !== undefined) {
      const status = error.status as number;
      const message = this.clean(`the LLM server at ${this.url} answered ${what} with HTTP ${status}: ${this.serverMessage(error)}`);
      // No cause: the SDK error holds the server's whole body, which may echo a secret.
      return new AppError(LLM_HTTP_ERROR, message, { retryable: status === 408 || status === 429 || status >= 500 });
    }
    return this.unreachable(`${what} failed: ${describe(error)}`);
  }

  /** Any failure to list the models is "unreachable": without a model there is no chat. */
  modelList(error: unknown): AppError {
    const mapped = this.request(error, 'GET /models');
    if (mapped.code === LLM_HTTP_ERROR) return new AppError(LLM_UNREACHABLE, mapped.message, { retryable: mapped.retryable });
    return mapped;
  }

  /** A probe (GET /models) that failed: the server is not serving, said in words. */
  notServing(error: unknown, timeoutMs: number): AppError {
    if (error instanceof APIUserAbortError) return this.cancelled(error);
    if (error instanceof APIConnectionTimeoutError) return new AppError(LLM_UNREACHABLE, `the LLM server at ${this.url} does not answer: nothing within ${timeoutMs} ms`, { retryable: true });
    if (error instanceof APIError && error.status !== undefined) {
      // llama-server answers 503 while it loads its model.
      return new AppError(LLM_UNREACHABLE, this.clean(`the LLM server at ${this.url} answers GET /models with HTTP ${error.status as number}: ${this.serverMessage(error)}`), { retryable: true });
    }
    const detail = error instanceof APIConnectionError ? connectionDetail(error) : describe(error);
    return new AppError(LLM_UNREACHABLE, this.clean(`the LLM server at ${this.url} does not answer: ${detail}`), { retryable: true });
  }

  /** A failure while the reply streams: the text already yielded stands. */
  stream(error: unknown): AppError {
    const prefix = `the reply from the LLM server at ${this.url} broke off`;
    if (error instanceof APIError && error.status === undefined && !(error instanceof APIConnectionError)) {
      return new AppError(LLM_STREAM_BROKEN, this.clean(`${prefix}: the server reported an error: ${this.serverMessage(error)}`), { retryable: true });
    }
    if (error instanceof SyntaxError) {
      // Not the parser's message: it quotes the chunk, which is model output.
      return new AppError(LLM_STREAM_BROKEN, `${prefix}: a chunk that is not JSON`, { cause: error, retryable: true });
    }
    const system = innermost(error);
    return new AppError(LLM_STREAM_BROKEN, this.clean(`${prefix}: ${connectionDetail(error)}`), { cause: system, retryable: true });
  }

  /** Removes the secrets from text that came from elsewhere (a server's error message may echo the key). */
  clean(text: string): string {
    return this.secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  }

  private serverMessage(error: APIError): string {
    const body = error.error as { message?: unknown } | string | undefined;
    const text =
      typeof body === 'object' && body !== null && typeof body.message === 'string'
        ? body.message
        : error.message.replace(/^\d{3} /, '');
    return text.length > SERVER_MESSAGE_LIMIT ? `${text.slice(0, SERVER_MESSAGE_LIMIT)}...` : text;
  }
}

/** The base URL as shown in messages: user and password removed. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return baseUrl;
  }
}

/** The user and password of a URL, raw and percent-decoded. */
function urlCredentials(baseUrl: string): string[] {
  try {
    const url = new URL(baseUrl);
    return [url.username, url.password].flatMap((part) => (part === '' ? [] : [part, decodeURIComponent(part)]));
  } catch {
    return [];
  }
}

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server',
  UND_ERR_SOCKET: 'connection closed by the server',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** Plain words for a network failure, from the first known code along the cause chain. */
function connectionDetail(error: unknown): string {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES[code] !== undefined) return CONNECTION_CODES[code];
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) return connectionDetail(errors[0]);
    current = (current as { cause?: unknown }).cause;
  }
  const last = innermost(error);
  return last instanceof Error && last.message === 'terminated' ? 'connection closed' : describe(last);
}

/** The deepest `cause`: the system error under the fetch and SDK wrappers. */
function innermost(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 8; depth += 1) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  return current;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
