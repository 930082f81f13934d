import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { SCRIPTED_MODEL, startScriptedLlmServer, type ScriptedLlmServer, type ScriptedLlmServerOptions } from './scripted-llm-server.js';

let server: ScriptedLlmServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: ScriptedLlmServerOptions): Promise<ScriptedLlmServer> {
  server = await startScriptedLlmServer(options);
  return server;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A plain node:http request, so the server is checked without the client under test. */
function raw(url: string, method: string, body?: unknown): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { 'content-type': 'application/json', authorization: 'Bearer test' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const chat = (s: ScriptedLlmServer, body: Record<string, unknown>) =>
  raw(`${s.url}/chat/completions`, 'POST', { model: 'm', messages: [{ role: 'user', content: 'hello there' }], ...body });

/** The `data:` payloads of an SSE body. */
function events(body: Buffer): string[] {
  return body
    .toString('utf8')
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      expect(block.startsWith('data: ')).toBe(true);
      return block.slice('data: '.length);
    });
}

type Chunk = { object: string; choices: Array<{ index: number; finish_reason: string | null; delta: Record<string, unknown> }>; usage?: Record<string, number> };

function chunks(body: Buffer): Chunk[] {
  const data = events(body);
  expect(data.at(-1)).toBe('[DONE]');
  return data.slice(0, -1).map((payload) => JSON.parse(payload) as Chunk);
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

describe('scripted LLM server', () => {
  it('lists its model as llama-server does and counts the requests', async () => {
    const s = await start({});
    const res = await raw(`${s.url}/models`, 'GET');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toMatchObject({ object: 'list', data: [{ id: SCRIPTED_MODEL, object: 'model', owned_by: 'llamacpp' }] });
    expect(s.modelListRequests).toBe(1);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('answers the model list with an error status when told to', async () => {
    const s = await start({ modelsStatus: 503 });
    const res = await raw(`${s.url}/models`, 'GET');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body.toString())).toMatchObject({ error: { code: 503, type: 'server_error' } });
  });

  it('streams text as chat.completion.chunk events: role, content pieces, finish, usage, [DONE]', async () => {
    const s = await start({ replies: [{ text: 'Hello there. How are you?' }] });
    const res = await chat(s, { stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const list = chunks(res.body);
    expect(list.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(list[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: null });
    const content = list.flatMap((chunk) => (typeof chunk.choices[0]?.delta.content === 'string' ? [chunk.choices[0].delta.content] : []));
    expect(content.length).toBeGreaterThan(3);
    expect(content.join('')).toBe('Hello there. How are you?');
    const finish = list.at(-2);
    expect(finish?.choices).toEqual([{ finish_reason: 'stop', index: 0, delta: {} }]);
    const usage = list.at(-1);
    expect(usage?.choices).toEqual([]);
    expect(usage?.usage).toEqual({ prompt_tokens: 2, completion_tokens: content.length, total_tokens: 2 + content.length });
  });

  it('sends no usage chunk unless the request asks for it', async () => {
    const s = await start({ replies: [{ text: 'Hi.' }] });
    const list = chunks((await chat(s, { stream: true })).body);
    expect(list.some((chunk) => chunk.usage !== undefined)).toBe(false);
    expect(list.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('streams tool calls as llama-server does: id, type and name first, then argument pieces', async () => {
    const s = await start({ replies: [{ toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }, { name: 'now', arguments: '{"tz":"Europe/Rome"}', id: 'fixed' }] }] });
    const list = chunks((await chat(s, { stream: true })).body);
    const fragments = list.flatMap((chunk) => (chunk.choices[0]?.delta.tool_calls as Array<Record<string, unknown>> | undefined) ?? []);
    const first = fragments.filter((fragment) => 'id' in fragment);
    expect(first).toEqual([
      { index: 0, id: 'call_0_0', type: 'function', function: { name: 'weather', arguments: '{"p' } },
      { index: 1, id: 'fixed', type: 'function', function: { name: 'now', arguments: '' } },
    ]);
    for (const index of [0, 1]) {
      const mine = fragments.filter((fragment) => fragment.index === index);
      expect(mine.length).toBeGreaterThan(3);
      expect(mine.slice(1).every((fragment) => !('id' in fragment) && Object.keys(fragment.function as object).join() === 'arguments')).toBe(true);
    }
    const args = (index: number) => fragments.filter((f) => f.index === index).map((f) => (f.function as { arguments: string }).arguments).join('');
    expect(args(0)).toBe('{"place":"Rome"}');
    expect(args(1)).toBe('{"tz":"Europe/Rome"}');
    expect(list.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it("'missing-id' streams the tool calls without ids", async () => {
    const s = await start({ replies: [{ fail: 'missing-id', toolCalls: [{ name: 'now', arguments: '{}' }] }] });
    const list = chunks((await chat(s, { stream: true })).body);
    const fragments = list.flatMap((chunk) => (chunk.choices[0]?.delta.tool_calls as object[] | undefined) ?? []);
    expect(fragments.length).toBeGreaterThan(0);
    expect(fragments.some((fragment) => 'id' in fragment)).toBe(false);
  });

  it('writes the bytes split at arbitrary points, inside `data: ` and inside multi-byte characters', async () => {
    const text = 'Caffè ☕ e 😀 più tardi, città è già là.';
    let insideChar = 0;
    let insideData = 0;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const s = await start({ split: { seed, maxBytes: 7 }, replies: [{ text }] });
      const res = await chat(s, { stream: true });
      const written = s.requests[0]?.written ?? [];
      // What was written is what arrived, and it still parses.
      expect(Buffer.concat(written).equals(res.body)).toBe(true);
      expect(chunks(res.body).length).toBeGreaterThan(5);
      expect(new Set(written.map((piece) => piece.length)).size).toBeGreaterThan(3);
      const prefixes: number[] = [];
      for (let i = res.body.indexOf('data: '); i !== -1; i = res.body.indexOf('data: ', i + 1)) prefixes.push(i);
      let offset = 0;
      for (const piece of written.slice(0, -1)) {
        offset += piece.length;
        if (isContinuation(res.body[offset])) insideChar += 1;
        if (prefixes.some((start) => start < offset && offset < start + 'data: '.length)) insideData += 1;
      }
      await s.close();
      server = undefined;
    }
    expect(insideChar).toBeGreaterThan(0);
    expect(insideData).toBeGreaterThan(0);
  });

  it('splits the same way for the same seed, and one byte a write in bytes mode', async () => {
    const sizes: number[][] = [];
    for (let run = 0; run < 2; run += 1) {
      const s = await start({ split: { seed: 42 }, replies: [{ text: 'Same split twice.' }] });
      await chat(s, { stream: true });
      sizes.push((s.requests[0]?.written ?? []).map((piece) => piece.length));
      await s.close();
      server = undefined;
    }
    expect(sizes[0]).toEqual(sizes[1]);
    const s = await start({ split: 'bytes', replies: [{ text: 'è' }] });
    const res = await chat(s, { stream: true });
    expect(s.requests[0]?.written.every((piece) => piece.length === 1)).toBe(true);
    expect(s.requests[0]?.written.length).toBe(res.body.length);
  });

  it('records every request body and answers a reply function from the request', async () => {
    const s = await start({
      replies: [
        { text: 'first' },
        (request) => ({ text: `you said: ${String(request.messages.at(-1)?.content)}` }),
      ],
    });
    const tools = [{ type: 'function', function: { name: 'now', description: 'time', parameters: { type: 'object' } } }];
    await chat(s, { stream: true, tools });
    const res = await chat(s, { stream: true, messages: [{ role: 'user', content: 'ping' }], model: 'other' });
    const text = chunks(res.body).map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('you said: ping');
    expect(s.requests.map((r) => [r.number, r.model, r.stream, r.tools])).toEqual([
      [0, 'm', true, tools],
      [1, 'other', true, undefined],
    ]);
    expect(s.requests[0]?.messages).toEqual([{ role: 'user', content: 'hello there' }]);
    expect(s.requests[0]?.headers.authorization).toBe('Bearer test');
  });

  it('answers a non-streaming request with one chat.completion object', async () => {
    const s = await start({ replies: [{ text: 'Plain.' }, { toolCalls: [{ name: 'now', arguments: '{}' }] }] });
    const plain = JSON.parse((await chat(s, { stream: false })).body.toString());
    expect(plain).toMatchObject({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Plain.' }, finish_reason: 'stop' }] });
    expect(plain.usage.total_tokens).toBe(plain.usage.prompt_tokens + plain.usage.completion_tokens);
    const tool = JSON.parse((await chat(s, {})).body.toString());
    expect(tool.choices[0]).toMatchObject({
      message: { content: null, tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'now', arguments: '{}' } }] },
      finish_reason: 'tool_calls',
    });
  });

  it('fails as scripted: HTTP errors with llama-server bodies, and a 500 when the script runs out', async () => {
    const s = await start({ replies: [{ fail: 'http-500', message: 'kaboom' }, { fail: 'http-error', status: 401, message: 'Invalid API Key' }] });
    const first = await chat(s, { stream: true });
    expect(first.status).toBe(500);
    expect(JSON.parse(first.body.toString())).toEqual({ error: { code: 500, message: 'kaboom', type: 'server_error' } });
    const second = await chat(s, { stream: true });
    expect(second.status).toBe(401);
    expect(JSON.parse(second.body.toString()).error.type).toBe('authentication_error');
    const third = await chat(s, { stream: true });
    expect(third.status).toBe(500);
    expect(third.body.toString()).toContain('no reply scripted for request #2');
  });

  it("'cut-mid-stream' sends the text and then drops the connection", async () => {
    const s = await start({ replies: [{ fail: 'cut-mid-stream', text: 'Half a' }] });
    await expect(chat(s, { stream: true })).rejects.toThrow();
    const sent = Buffer.concat(s.requests[0]?.written ?? []).toString();
    expect(sent).toContain('"content":"Half"');
    expect(sent).not.toContain('finish_reason":"stop');
    expect((await s.requests[0]?.closed)?.beforeEnd).toBe(true);
  });

  it("'end-without-finish', 'malformed-json' and 'error-event' end the body as described", async () => {
    const s = await start({ replies: [{ fail: 'end-without-finish', text: 'a' }, { fail: 'malformed-json', text: 'b' }, { fail: 'error-event', text: 'c', message: 'ctx full' }] });
    const ended = events((await chat(s, { stream: true })).body);
    expect(ended.some((data) => data.includes('finish_reason":"stop') || data === '[DONE]')).toBe(false);
    const malformed = events((await chat(s, { stream: true })).body);
    expect(malformed.filter((data) => !isJson(data) && data !== '[DONE]')).toHaveLength(1);
    const errored = events((await chat(s, { stream: true })).body);
    expect(JSON.parse(errored.at(-1) ?? '')).toEqual({ error: { code: 500, message: 'ctx full', type: 'server_error' } });
  });

  it("'cut-after-finish' sends the reply up to its finish reason, then drops the connection", async () => {
    const s = await start({ replies: [{ fail: 'cut-after-finish', text: 'All.' }] });
    await expect(chat(s, { stream: true, stream_options: { include_usage: true } })).rejects.toThrow();
    const sent = Buffer.concat(s.requests[0]?.written ?? []).toString();
    expect(sent).toContain('"finish_reason":"stop"');
    expect(sent).not.toContain('[DONE]');
    expect(sent).not.toContain('"usage"');
  });

  it("'hang' sends headers and nothing more; close() ends the hanging connection and may be called twice", async () => {
    const s = await start({ replies: [{ fail: 'hang' }] });
    const headers = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${s.url}/chat/completions`, { method: 'POST' }, (res) => {
        res.on('data', () => reject(new Error('a hanging reply sent data')));
        res.on('error', () => undefined);
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ stream: true, messages: [] }));
    });
    expect(headers).toBe(200);
    await s.close();
    await s.close();
    server = undefined;
    expect((await s.requests[0]?.closed)?.beforeEnd).toBe(true);
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
