import { withDeadline } from '../../deadline/index.js';
import { AppError } from '../../errors/index.js';
import { encodeWav } from '../audio/index.js';
import { SAMPLE_RATE, type Stt, type Transcript } from '../types.js';
import {
  STT_BAD_OPTIONS,
  STT_BAD_RESPONSE,
  STT_HTTP_ERROR,
  STT_TIMEOUT,
  STT_UNREACHABLE,
  requirePositiveMs,
  sttCancelled,
} from './errors.js';
import { whisperLanguageCode } from './whisper-languages.js';

export interface WhisperServerSttOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8182`; `/inference` is added. */
  url: string;
  /** 'auto' (the default) to detect the language, or a fixed code ('en', 'it'); a call's `language` wins. */
  language?: string;
  /** 0 (the default) decodes greedily; whisper-server raises it on its own when a decode fails. */
  temperature?: number;
  /** For the whole request, upload and answer; 30000 by default. */
  timeoutMs?: number;
}

export const WHISPER_SERVER_DEFAULT_TIMEOUT_MS = 30_000;
/** The server's own words are quoted up to this many characters. */
const BODY_CLIP = 200;

/**
 * Recognition by whisper.cpp's whisper-server: the utterance goes as a WAV
 * in a multipart POST to `/inference` with `response_format=verbose_json`,
 * which adds the language whisper used and per-segment log probabilities to
 * the text. One final transcript per utterance, no partials.
 */
export class WhisperServerStt implements Stt {
  readonly name = 'whisper-server';
  readonly url: string;
  private readonly endpoint: string;
  private readonly language: string;
  private readonly temperature: number;
  private readonly timeoutMs: number;

  constructor(options: WhisperServerSttOptions) {
    this.url = options.url.replace(/\/+$/, '');
    try {
      new URL(this.url);
    } catch {
      throw new AppError(STT_BAD_OPTIONS, `the whisper-server URL is not a URL: ${JSON.stringify(options.url)}`);
    }
    this.endpoint = `${this.url}/inference`;
    this.language = options.language ?? 'auto';
    this.temperature = options.temperature ?? 0;
    this.timeoutMs = requirePositiveMs('the whisper-server timeout', options.timeoutMs ?? WHISPER_SERVER_DEFAULT_TIMEOUT_MS);
  }

  async *transcribe(audio: Int16Array, options: { signal?: AbortSignal; language?: string } = {}): AsyncIterable<Transcript> {
    yield await this.request(audio, options.language ?? this.language, options.signal);
  }

  async close(): Promise<void> {
    // Stateless client: each request is its own connection.
  }

  private async request(audio: Int16Array, language: string, signal: AbortSignal | undefined): Promise<Transcript> {
    const what = `recognition by the whisper-server at ${this.url}`;
    if (signal?.aborted) throw sttCancelled(what, signal.reason);
    const form = new FormData();
    const wav = encodeWav({ sampleRate: SAMPLE_RATE, channels: 1, samples: audio });
    form.append('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'utterance.wav');
    form.append('response_format', 'verbose_json');
    form.append('temperature', String(this.temperature));
    form.append('language', language);

    // Closing the connection is also how whisper-server learns to stop decoding.
    const deadline = withDeadline(signal, this.timeoutMs);
    try {
      const response = await fetch(this.endpoint, { method: 'POST', body: form, signal: deadline.signal });
      const body = await response.text();
      if (!response.ok) throw this.httpError(response.status, body);
      return this.transcript(body);
    } catch (error) {
      if (deadline.reason === 'cancelled') throw sttCancelled(what, signal?.reason);
      if (deadline.reason === 'timeout') {
        throw new AppError(STT_TIMEOUT, `the whisper-server at ${this.url} sent no complete answer within ${this.timeoutMs} ms`, { retryable: true });
      }
      if (error instanceof AppError) throw error;
      throw new AppError(STT_UNREACHABLE, `cannot reach the whisper-server at ${this.url}: ${connectionDetail(error)}`, { cause: error, retryable: true });
    } finally {
      deadline.dispose();
    }
  }

  private httpError(status: number, body: string): AppError {
    let said = body;
    try {
      const error = (JSON.parse(body) as { error?: unknown } | null)?.error;
      if (typeof error === 'string') said = error;
    } catch {
      // Not JSON (httplib's "File Not Found (/inference)"): quoted as it is.
    }
    const clipped = said.replace(/\s+/g, ' ').trim().slice(0, BODY_CLIP);
    return new AppError(STT_HTTP_ERROR, `the whisper-server at ${this.url} answered HTTP ${status}${clipped === '' ? '' : `: ${clipped}`}`, {
      retryable: status === 408 || status === 429 || status >= 500,
    });
  }

  private transcript(body: string): Transcript {
    let reply: unknown;
    try {
      reply = JSON.parse(body);
    } catch {
      // Not quoted: the body may hold what the user said.
      throw new AppError(STT_BAD_RESPONSE, `the whisper-server at ${this.url} sent a reply that is not JSON`);
    }
    const { text, language, segments } = (reply ?? {}) as { text?: unknown; language?: unknown; segments?: unknown };
    if (typeof text !== 'string') throw new AppError(STT_BAD_RESPONSE, `the whisper-server at ${this.url} sent a reply without a "text" string`);
    const out: Transcript = { text: text.replace(/\s+/g, ' ').trim(), final: true };
    const code = whisperLanguageCode(language);
    if (code !== undefined) out.language = code;
    const confidence = segmentConfidence(segments);
    if (confidence !== undefined) out.confidence = confidence;
    return out;
  }
}

/**
 * exp of the mean of the segments' `avg_logprob` (the mean token log
 * probability): 1 for a certain decode, about 0.37 where whisper's own
 * logprob threshold (-1) calls a decode failed.
 */
function segmentConfidence(segments: unknown): number | undefined {
  if (!Array.isArray(segments)) return undefined;
  const logprobs = segments
    .map((segment) => (segment as { avg_logprob?: unknown } | null)?.avg_logprob)
    .filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  if (logprobs.length === 0) return undefined;
  const mean = logprobs.reduce((sum, value) => sum + value, 0) / logprobs.length;
  return Math.min(1, Math.max(0, Math.exp(mean)));
}

/** fetch says only "fetch failed"; the system error is in its cause. */
function connectionDetail(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused (is it running?)',
    ECONNRESET: 'the connection was reset',
    ENOTFOUND: 'no such host',
    EHOSTUNREACH: 'host unreachable',
    UND_ERR_SOCKET: 'the connection closed before an answer',
  };
  if (code !== undefined && known[code] !== undefined) return known[code];
  return cause instanceof Error ? cause.message : String(cause);
}
