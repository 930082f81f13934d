import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for llama-server: a real HTTP server on a loopback port that
 * speaks the OpenAI chat completions API the way llama-server does, and plays
 * scripted replies, one per request. The response bytes are written in pieces
 * split at arbitrary byte boundaries (inside `data: `, inside a multi-byte
 * UTF-8 character) so a client has to reassemble them.
 */

export interface ScriptedToolCall {
  name: string;
  /** The arguments text, sent in several pieces; it need not be valid JSON. */
  arguments: string;
  /** Default `call_<request>_<index>`; null sends the call without an id. */
  id?: string | null;
}

export type FailureMode =
  /** HTTP 500 with llama-server's error body. */
  | 'http-500'
  /** HTTP `status` (default 400) with llama-server's error body. */
  | 'http-error'
  /** The text is streamed, then the connection is destroyed with no finish_reason. */
  | 'cut-mid-stream'
  /** The text is streamed, then the response ends cleanly, with no finish_reason and no [DONE]. */
  | 'end-without-finish'
  /** The text is streamed, then a chunk that is not JSON, then the rest of a normal reply. */
  | 'malformed-json'
  /** The text is streamed, then `data: {"error":...}` as llama-server sends a failure mid-stream. */
  | 'error-event'
  /** Headers are sent, then nothing (llama-server reading a long prompt). */
  | 'hang'
  /** Nothing at all is sent. */
  | 'hang-before-headers'
  /** The text is streamed, then nothing more. */
  | 'stall-mid-stream'
  /** The whole reply up to its finish_reason, then the connection is destroyed (no usage, no [DONE]). */
  | 'cut-after-finish'
  /** The whole reply up to its finish_reason, then nothing more. */
  | 'stall-after-finish'
  /** The connection is destroyed before any response. */
  | 'reset'
  /** The tool calls are streamed without ids. */
  | 'missing-id'
  /** The text is streamed, then " And more." every 20 ms, never finishing, until the client goes away. */
  | 'endless'
  /**
   * The text is streamed, then " word word." every 20 ms, never finishing, until the client goes
   * away: a run-on reply whose every dot is followed by a lower-case word, so no sentence ends.
   */
  | 'endless-run-on';

export interface ScriptedReplySpec {
  text?: string;
  /** Sent as `reasoning_content` deltas before the text (llama-server's --reasoning-format). */
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  fail?: FailureMode;
  /** For 'http-error'. */
  status?: number;
  /** The server's error message for 'http-500', 'http-error' and 'error-event'. */
  message?: string;
  /** Default 'tool_calls' when there are tool calls, else 'stop'. */
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** A reply, or a function of the request that makes one (to answer from the messages). */
export type ScriptedReply = ScriptedReplySpec | ((request: RecordedChatRequest) => ScriptedReplySpec | Promise<ScriptedReplySpec>);

/** How the response bytes are cut into writes. */
export type SplitMode =
  /** Pieces of 1..maxBytes bytes (default 12) at points drawn from a generator seeded with `seed` + the request number. */
  | { seed: number; maxBytes?: number }
  /** One byte a write. */
  | 'bytes'
  /** One SSE event a write, as llama-server itself writes. */
  | 'events';

export interface RecordedChatRequest {
  /** 0 for the first chat request. */
  number: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  model: unknown;
  messages: Array<Record<string, unknown>>;
  tools: unknown[] | undefined;
  stream: boolean;
  /** The byte pieces written for the response body, in order. */
  written: Buffer[];
  /** Resolves when the connection closes: `beforeEnd` when the client went away before the response ended. */
  closed: Promise<{ beforeEnd: boolean }>;
}

export interface ScriptedLlmServerOptions {
  replies?: ScriptedReply[];
  split?: SplitMode;
  /** The ids GET /v1/models lists. */
  models?: string[];
  /** Answer GET /v1/models with this HTTP status instead. */
  modelsStatus?: number;
  /** The loopback port to listen on; default any free one (a given port lets a killed server start again where it was). */
  port?: number;
}

export interface ScriptedLlmServer {
  /** `http://127.0.0.1:PORT/v1`, the base URL a client is given. */
  url: string;
  /** Every chat completion request, in arrival order. */
  requests: RecordedChatRequest[];
  /** How many times GET /v1/models was asked. */
  modelListRequests: number;
  /** Adds replies to the end of the script. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Stops listening and ends every open connection; calling it again is harmless. */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
export const SCRIPTED_MODEL = 'scripted-model';
const CREATED = 1_760_000_000;

export async function startScriptedLlmServer(options: ScriptedLlmServerOptions = {}): Promise<ScriptedLlmServer> {
  const script = [...(options.replies ?? [])];
  const split = options.split ?? { seed: 1 };
  const models = options.models ?? [SCRIPTED_MODEL];
  const state: ScriptedLlmServer = {
    url: '',
    requests: [],
    modelListRequests: 0,
    enqueue: (...replies) => void script.push(...replies),
    close: async () => undefined,
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      // A broken script must fail the test loudly, not hang the client.
      if (!res.headersSent) sendError(res, 599, `scripted LLM server failed: ${(error as Error).message}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', `http://${HOST}`).pathname.replace(/^\/v1(?=\/)/, '');
    if (req.method === 'GET' && path === '/models') {
      state.modelListRequests += 1;
      if (options.modelsStatus !== undefined) return sendError(res, options.modelsStatus, 'model list unavailable');
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'llamacpp', meta: { n_ctx_train: 8192 } })),
      });
    }
    if (req.method !== 'POST' || path !== '/chat/completions') return sendError(res, 404, 'File Not Found');

    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return sendError(res, 400, 'Failed to parse the request body as JSON');
    }
    const request: RecordedChatRequest = {
      number: state.requests.length,
      path: req.url ?? '',
      headers: req.headers,
      body,
      model: body.model,
      messages: Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [],
      tools: Array.isArray(body.tools) ? body.tools : undefined,
      stream: body.stream === true,
      written: [],
      closed: new Promise((resolve) => res.once('close', () => resolve({ beforeEnd: !res.writableFinished }))),
    };
    state.requests.push(request);

    const next = script.shift();
    if (next === undefined) return sendError(res, 500, `scripted LLM server: no reply scripted for request #${request.number}`);
    const reply = typeof next === 'function' ? await next(request) : next;
    await respond(request, reply, res, split);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, HOST, () => resolve());
  });
  state.url = `http://${HOST}:${(server.address() as AddressInfo).port}/v1`;
  let closing: Promise<void> | undefined;
  state.close = () =>
    (closing ??= new Promise<void>((resolve, reject) => {
      // Hanging responses and keep-alive sockets would otherwise hold close() open.
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }));
  return state;
}

async function respond(request: RecordedChatRequest, reply: ScriptedReplySpec, res: ServerResponse, split: SplitMode): Promise<void> {
  const fail = reply.fail;
  if (fail === 'http-500') return sendError(res, 500, reply.message ?? 'scripted internal error');
  if (fail === 'http-error') return sendError(res, reply.status ?? 400, reply.message ?? 'scripted request error');
  if (fail === 'reset') return void res.socket?.destroy();
  if (fail === 'hang-before-headers') return;

  const reasoning = pieces(reply.reasoning ?? '');
  const text = pieces(reply.text ?? '');
  const calls = (reply.toolCalls ?? []).map((call, index) => ({
    index,
    id: fail === 'missing-id' || call.id === null ? undefined : (call.id ?? `call_${request.number}_${index}`),
    name: call.name,
    arguments: pieces(call.arguments, 3),
  }));
  const finishReason = reply.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
  const completionTokens = reasoning.length + text.length + calls.reduce((n, call) => n + call.arguments.length + 1, 0);
  const usage = reply.usage ?? { prompt_tokens: promptTokens(request), completion_tokens: completionTokens };
  const usageWire = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };

  if (!request.stream) {
    const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? (calls.length > 0 ? null : '') };
    if (calls.length > 0) {
      message.tool_calls = calls.map((call) => ({ ...(call.id === undefined ? {} : { id: call.id }), type: 'function', function: { name: call.name, arguments: call.arguments.join('') } }));
    }
    return sendJson(res, 200, {
      id: `chatcmpl-scripted-${request.number}`,
      object: 'chat.completion',
      created: CREATED,
      model: String(request.model ?? SCRIPTED_MODEL),
      choices: [{ index: 0, message, finish_reason: finishReason }],
      usage: usageWire,
    });
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  if (fail === 'hang') return;

  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    event({
      choices: [{ finish_reason: finish, index: 0, delta }],
      created: CREATED,
      id: `chatcmpl-scripted-${request.number}`,
      model: String(request.model ?? SCRIPTED_MODEL),
      system_fingerprint: 'b0000-scripted',
      object: 'chat.completion.chunk',
    });
  const head = [chunk({ role: 'assistant', content: null }), ...reasoning.map((piece) => chunk({ reasoning_content: piece })), ...text.map((piece) => chunk({ content: piece }))];
  const writer = new SplitWriter(request, res, split);

  switch (fail) {
    case 'cut-mid-stream':
      await writer.write(head.join(''));
      return void res.socket?.destroy();
    case 'stall-mid-stream':
      return writer.write(head.join(''));
    case 'endless':
    case 'endless-run-on':
      await writer.write(head.join(''));
      while (!res.destroyed && !res.writableEnded) {
        res.write(chunk({ content: fail === 'endless' ? ' And more.' : ' word word.' }));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return;
    case 'end-without-finish':
      await writer.write(head.join(''));
      return void res.end();
    case 'error-event':
      await writer.write(head.join('') + event({ error: { code: 500, message: reply.message ?? 'scripted mid-stream error', type: 'server_error' } }));
      return void res.end();
    case 'malformed-json':
      await writer.write(head.join('') + 'data: {"choices":[{"delta":{"content":"oops"\n\n');
      break;
    default:
      await writer.write(head.join(''));
  }

  const toolChunks = calls.flatMap((call) => {
    // llama-server: id, type and name in the first fragment, then argument pieces only.
    const [first = '', ...rest] = call.index === 0 ? call.arguments : ['', ...call.arguments];
    const opening = { index: call.index, ...(call.id === undefined ? {} : { id: call.id, type: 'function' }), function: { name: call.name, arguments: first } };
    return [chunk({ tool_calls: [opening] }), ...rest.map((piece) => chunk({ tool_calls: [{ index: call.index, function: { arguments: piece } }] }))];
  });
  const options = request.body.stream_options as { include_usage?: boolean } | undefined;
  const tail = [...toolChunks, chunk({}, finishReason)];
  if (fail === 'cut-after-finish' || fail === 'stall-after-finish') {
    await writer.write(tail.join(''));
    if (fail === 'cut-after-finish') res.socket?.destroy();
    return;
  }
  if (options?.include_usage === true) {
    tail.push(event({ choices: [], created: CREATED, id: `chatcmpl-scripted-${request.number}`, model: String(request.model ?? SCRIPTED_MODEL), object: 'chat.completion.chunk', usage: usageWire }));
  }
  tail.push('data: [DONE]\n\n');
  await writer.write(tail.join(''));
  res.end();
}

/** Writes bytes in pieces, giving the event loop a turn between them so the client sees them apart. */
class SplitWriter {
  private readonly random: () => number;

  constructor(
    private readonly request: RecordedChatRequest,
    private readonly res: ServerResponse,
    private readonly split: SplitMode,
  ) {
    this.random = mulberry32(typeof split === 'object' ? split.seed + request.number * 7919 : 0);
  }

  async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    const cuts = this.split === 'events' ? eventBoundaries(text) : undefined;
    for (let at = 0; at < bytes.length; ) {
      const size = cuts !== undefined ? (cuts.find((cut) => cut > at) ?? bytes.length) - at : this.pieceSize();
      const piece = bytes.subarray(at, at + size);
      at += size;
      if (this.res.destroyed) return;
      this.request.written.push(piece);
      await new Promise<void>((resolve) => this.res.write(piece, () => resolve()));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private pieceSize(): number {
    return typeof this.split === 'object' ? 1 + Math.floor(this.random() * (this.split.maxBytes ?? 12)) : 1;
  }
}

/** Byte offsets just after each "\n\n" (the SSE text is ASCII around them). */
function eventBoundaries(text: string): number[] {
  const cuts: number[] = [];
  const bytes = Buffer.from(text, 'utf8');
  for (let i = bytes.indexOf('\n\n'); i !== -1; i = bytes.indexOf('\n\n', i + 2)) cuts.push(i + 2);
  return cuts;
}

/** Token-like pieces: a word with its leading space, long words cut every `size` code points. */
function pieces(text: string, size = 4): string[] {
  const out: string[] = [];
  for (const word of text.match(/\s*\S+|\s+/gu) ?? []) {
    const chars = Array.from(word);
    const lead = /^\s*/u.exec(word)?.[0].length ?? 0;
    for (let i = 0; i < chars.length; ) {
      const take = i === 0 ? lead + size : size;
      out.push(chars.slice(i, i + take).join(''));
      i += take;
    }
  }
  return out;
}

/** A stand-in token count: the words of every message. */
function promptTokens(request: RecordedChatRequest): number {
  return request.messages.reduce((n, message) => n + (typeof message.content === 'string' ? (message.content.match(/\S+/g)?.length ?? 0) : 0), 0);
}

function event(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** llama-server's error body. */
function sendError(res: ServerResponse, status: number, message: string): void {
  const type = status === 404 ? 'not_found_error' : status === 401 ? 'authentication_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { code: status, message, type } });
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
