import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseWav } from '../../src/voice/audio/index.js';

/**
 * A stand-in for whisper.cpp's whisper-server: a real HTTP server on a
 * loopback port with its wire format. `POST /inference` takes a multipart
 * form (`file` and text fields) and answers with the scripted replies, one
 * per request, as `verbose_json`, `json` or `text`; `GET /health` answers
 * `{"status":"ok"}` or, while "loading", 503 `{"status":"loading model"}`.
 * Stricter than the real one in one way: the file must be a 16 kHz mono
 * 16-bit WAV, the only audio the voice ever sends.
 */

export interface FakeWhisperReplySpec {
  /** The transcript; sent with whisper's leading space. '' (no segment) by default. */
  text?: string;
  /** The language as whisper-server names it ('english', 'italian'); 'english' by default. */
  language?: string;
  /** The segment's mean token log probability; -0.25 by default. */
  avgLogprob?: number;
  /** Waits this long (ms) before answering. */
  delayMs?: number;
  fail?: FakeWhisperFailure;
  /** For 'http-error'; 400 by default. */
  status?: number;
  /** The `error` text for 'http-500' and 'http-error'. */
  message?: string;
}

export type FakeWhisperFailure =
  /** 500 `{"error":"failed to process audio"}`, as when whisper_full fails. */
  | 'http-500'
  /** `status` with `{"error": message}`. */
  | 'http-error'
  /** 200 with a body that is not JSON. */
  | 'not-json'
  /** 200 with JSON that has no `text`. */
  | 'no-text'
  /** Nothing is sent until the client goes away. */
  | 'hang'
  /** The connection is destroyed before any answer. */
  | 'reset';

export type FakeWhisperReply = FakeWhisperReplySpec | ((request: RecordedInference) => FakeWhisperReplySpec);

export interface RecordedInference {
  /** 0 for the first POST /inference. */
  number: number;
  /** The form's text fields (response_format, temperature, language, ...). */
  fields: Record<string, string>;
  file?: { name: string; type: string; bytes: Buffer };
  /** The WAV's samples, when the file is a 16 kHz mono 16-bit WAV. */
  samples?: Int16Array;
  /** Resolves when the connection closes: `beforeEnd` when the client went away before the answer ended. */
  closed: Promise<{ beforeEnd: boolean }>;
}

export interface FakeWhisperServer {
  /** `http://127.0.0.1:PORT`, the base URL a client is given. */
  url: string;
  requests: RecordedInference[];
  healthChecks: number;
  enqueue(...replies: FakeWhisperReply[]): void;
  /** 'loading' makes /health answer 503 as whisper-server does while it loads a model. */
  setHealth(state: 'ok' | 'loading'): void;
  close(): Promise<void>;
}

const LANGUAGE_CODES: Record<string, string> = { english: 'en', italian: 'it', german: 'de', french: 'fr', spanish: 'es' };

export async function startFakeWhisperServer(options: { replies?: FakeWhisperReply[]; health?: 'ok' | 'loading' } = {}): Promise<FakeWhisperServer> {
  const script = [...(options.replies ?? [])];
  let health = options.health ?? 'ok';
  const requests: RecordedInference[] = [];
  const state = { healthChecks: 0 };

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(error) });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const body = await readBody(req);
    if (req.method === 'GET' && path === '/health') {
      state.healthChecks++;
      if (health === 'ok') sendJson(res, 200, { status: 'ok' });
      else sendJson(res, 503, { status: 'loading model' });
      return;
    }
    if (req.method !== 'POST' || path !== '/inference') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`File Not Found (${path})`);
      return;
    }
    const recorded: RecordedInference = {
      number: requests.length,
      fields: {},
      closed: new Promise((resolve) => res.once('close', () => resolve({ beforeEnd: !res.writableFinished }))),
    };
    requests.push(recorded);
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Invalid request');
      return;
    }
    for (const [name, value] of form) {
      if (typeof value === 'string') recorded.fields[name] = value;
      else if (name === 'file') recorded.file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
    if (recorded.file === undefined) return sendJson(res, 400, { error: "no 'file' field in the request" });
    recorded.samples = mono16k(recorded.file.bytes);
    if (recorded.samples === undefined) return sendJson(res, 400, { error: 'failed to read audio data' });

    const next = script.shift();
    if (next === undefined) return sendJson(res, 500, { error: 'fake whisper-server: no scripted reply left' });
    const reply = typeof next === 'function' ? next(recorded) : next;
    if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    switch (reply.fail) {
      case 'hang':
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'http-500':
        return sendJson(res, 500, { error: reply.message ?? 'failed to process audio' });
      case 'http-error':
        return sendJson(res, reply.status ?? 400, { error: reply.message ?? 'bad request' });
      case 'not-json':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"text": " half a repl');
        return;
      case 'no-text':
        return sendJson(res, 200, { segments: [] });
    }
    answer(res, reply, recorded);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get healthChecks() {
      return state.healthChecks;
    },
    enqueue: (...replies) => void script.push(...replies),
    setHealth: (next) => void (health = next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** verbose_json as whisper-server builds it (one segment), or `json` / `text`. */
function answer(res: ServerResponse, reply: FakeWhisperReplySpec, request: RecordedInference): void {
  const text = reply.text === undefined || reply.text === '' ? '' : ` ${reply.text}`;
  const format = request.fields.response_format ?? 'json';
  if (format === 'text') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(text);
    return;
  }
  if (format !== 'verbose_json') return sendJson(res, 200, { text });
  const duration = (request.samples?.length ?? 0) / 16_000;
  const language = reply.language ?? 'english';
  const words = text.split(/(?= )/).filter((word) => word !== '');
  const segments =
    text === ''
      ? []
      : [
          {
            id: 0,
            text,
            start: 0,
            end: duration,
            tokens: words.map((_, index) => 50_365 + index),
            words: words.map((word, index) => ({ word, start: 0, end: duration, t_dtw: -1, probability: 0.9 - index * 0.01 })),
            temperature: Number(request.fields.temperature ?? 0),
            avg_logprob: reply.avgLogprob ?? -0.25,
            no_speech_prob: 0.01,
          },
        ];
  sendJson(res, 200, {
    task: 'transcribe',
    language,
    duration,
    text,
    segments,
    detected_language: language,
    detected_language_probability: 0.97,
    language_probabilities: { [LANGUAGE_CODES[language] ?? language]: 0.97 },
  });
}

function mono16k(bytes: Buffer): Int16Array | undefined {
  try {
    const wav = parseWav(bytes, 'upload');
    return wav.sampleRate === 16_000 && wav.channels === 1 ? wav.samples : undefined;
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
