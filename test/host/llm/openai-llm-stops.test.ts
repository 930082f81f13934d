import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { isAppError, type AppError } from '../../../src/errors/index.js';
import { OpenAiLlm, type LlmEvent } from '../../../src/host/llm/index.js';
import { refusedUrl } from '../../helpers/http-stub.js';
import { FAKE_KEY, USER, collect, llmFor, scriptedServers, textOf, until } from './llm-test-kit.js';

const start = scriptedServers();

describe('OpenAiLlm: cancellation', () => {
  for (const fail of ['hang', 'hang-before-headers'] as const) {
    it(`abort is LLM_CANCELLED promptly on a hanging server (${fail}), and the server sees the connection close`, async () => {
      const s = await start({ replies: [{ fail }] });
      const controller = new AbortController();
      const outcome = collect(llmFor(s, { model: 'm' }).stream({ messages: USER }, { signal: controller.signal }));
      await until(() => s.requests.length === 1, 'the request to arrive');
      const abortedAt = Date.now();
      controller.abort();
      const { events, error } = await outcome;
      expect(Date.now() - abortedAt).toBeLessThan(1000);
      expect(events).toEqual([]);
      expect(error?.code).toBe('LLM_CANCELLED');
      expect((await s.requests[0]?.closed)?.beforeEnd).toBe(true);
    }, 5000);
  }

  it('abort mid-stream keeps the text already yielded and ends with LLM_CANCELLED', async () => {
    const s = await start({ replies: [{ fail: 'stall-mid-stream', text: 'Started' }] });
    const controller = new AbortController();
    const events: LlmEvent[] = [];
    let error: unknown;
    try {
      for await (const event of llmFor(s, { model: 'm' }).stream({ messages: USER }, { signal: controller.signal })) {
        events.push(event);
        if (textOf(events) === 'Started') controller.abort();
      }
    } catch (caught) {
      error = caught;
    }
    expect(textOf(events)).toBe('Started');
    expect(isAppError(error, 'LLM_CANCELLED')).toBe(true);
    expect((await s.requests[0]?.closed)?.beforeEnd).toBe(true);
  }, 5000);

  it('an already aborted signal is LLM_CANCELLED without any request', async () => {
    const s = await start({ replies: [{ text: 'never' }] });
    const { error } = await collect(llmFor(s).stream({ messages: USER }, { signal: AbortSignal.abort() }));
    expect(error?.code).toBe('LLM_CANCELLED');
    expect(s.requests).toHaveLength(0);
    expect(s.modelListRequests).toBe(0);
  });

  it('a caller that stops reading early closes the connection', async () => {
    const s = await start({ replies: [{ fail: 'stall-mid-stream', text: 'One' }] });
    for await (const event of llmFor(s, { model: 'm' }).stream({ messages: USER })) {
      expect(event).toEqual({ type: 'text', text: 'One' });
      break;
    }
    expect((await s.requests[0]?.closed)?.beforeEnd).toBe(true);
  }, 5000);
});

describe('OpenAiLlm: timeouts (virtual time)', () => {
  it('no first token within firstTokenTimeoutMs is LLM_UNREACHABLE', async () => {
    const s = await start({ replies: [{ fail: 'hang' }] });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let settled = false;
    const outcome = collect(llmFor(s, { model: 'm', firstTokenTimeoutMs: 30_000 }).stream({ messages: USER })).finally(() => {
      settled = true;
    });
    await until(() => s.requests.length === 1, 'the request to arrive');
    await vi.advanceTimersByTimeAsync(29_000);
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    const { error } = await outcome;
    expect(error?.code).toBe('LLM_UNREACHABLE');
    expect(error?.message).toBe(`the LLM server at ${s.url} sent no reply within 30000 ms`);
    expect((await s.requests[0]?.closed)?.beforeEnd).toBe(true);
  });

  it('a stream silent for idleTimeoutMs after its first token is LLM_STREAM_BROKEN after its text', async () => {
    const s = await start({ replies: [{ fail: 'stall-mid-stream', text: 'Hi' }] });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stream = llmFor(s, { model: 'm', firstTokenTimeoutMs: 60_000, idleTimeoutMs: 5_000 }).stream({ messages: USER })[Symbol.asyncIterator]();
    expect((await stream.next()).value).toEqual({ type: 'text', text: 'Hi' });
    const next = stream.next().then(
      () => undefined,
      (error: unknown) => error as AppError,
    );
    await vi.advanceTimersByTimeAsync(5_000);
    const error = await next;
    expect(error?.code).toBe('LLM_STREAM_BROKEN');
    expect(error?.message).toContain('nothing for 5000 ms');
  });

  it('silence after the finish reason ends the reply as whole', async () => {
    const s = await start({ replies: [{ fail: 'stall-after-finish', text: 'Complete.' }] });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const outcome = collect(llmFor(s, { model: 'm', idleTimeoutMs: 3_000 }).stream({ messages: USER }));
    const sent = () => Buffer.concat(s.requests[0]?.written ?? []).toString();
    // The finish chunk is the last thing the server writes.
    await until(() => sent().includes('"finish_reason":"stop"') && sent().endsWith('\n\n'), 'the finish chunk');
    // Sent is not yet read: loopback data is readable at once, so a few event-loop turns let the client take it.
    for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(3_000);
    const { events, error } = await outcome;
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Complete.');
    expect(events.at(-1)).toEqual({ type: 'done', toolCalls: [], finishReason: 'stop' });
  });

  it('the silence timer does not run while the caller holds an event', async () => {
    const s = await start({ split: 'events', replies: [{ text: 'Hello there. How are you?' }] });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { events, error } = await collect(
      (async function* () {
        for await (const event of llmFor(s, { model: 'm', idleTimeoutMs: 1_000 }).stream({ messages: USER })) {
          // A slow consumer (speech synthesis, say) keeps each event for 5 s of virtual time.
          if (event.type === 'text') await vi.advanceTimersByTimeAsync(5_000);
          yield event;
        }
      })(),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Hello there. How are you?');
  });

  it('no response headers within requestTimeoutMs is LLM_UNREACHABLE', async () => {
    const s = await start({ replies: [{ fail: 'hang-before-headers' }] });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const outcome = collect(llmFor(s, { model: 'm', requestTimeoutMs: 2_000 }).stream({ messages: USER }));
    await until(() => s.requests.length === 1, 'the request to arrive');
    await vi.advanceTimersByTimeAsync(2_000);
    const { error } = await outcome;
    expect(error?.code).toBe('LLM_UNREACHABLE');
    expect(error?.message).toBe(`cannot reach the LLM server at ${s.url}: no answer to the chat request in time`);
  });
});

describe('OpenAiLlm: the API key', () => {
  it('never appears in any error, even when the server echoes it', async () => {
    const echo = `Invalid API key: ${FAKE_KEY}`;
    const s = await start({
      replies: [
        { fail: 'http-error', status: 401, message: echo },
        { fail: 'http-500', message: echo },
        { fail: 'error-event', text: 'x', message: echo },
        { fail: 'cut-mid-stream', text: 'y' },
        { fail: 'malformed-json', text: 'z' },
        { fail: 'end-without-finish', text: 'w' },
        { fail: 'reset' },
      ],
    });
    const errors: AppError[] = [];
    const llm = llmFor(s, { model: 'm' });
    for (let i = 0; i < 7; i += 1) {
      const { error } = await collect(llm.stream({ messages: USER }));
      if (error) errors.push(error);
    }
    const controller = new AbortController();
    controller.abort();
    errors.push(...[(await collect(llm.stream({ messages: USER }, { signal: controller.signal }))).error].filter((e) => e !== undefined));
    errors.push(...[(await collect(llmFor({ url: `${await refusedUrl()}/v1` }).stream({ messages: USER }))).error].filter((e) => e !== undefined));
    errors.push(...[(await collect(llmFor({ url: `${await refusedUrl()}/v1` }, { model: 'm' }).stream({ messages: USER }))).error].filter((e) => e !== undefined));

    expect(errors).toHaveLength(10);
    // The key did reach the server, so its absence below means something.
    expect(s.requests[0]?.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
    expect(errors[0]?.message).toContain('[redacted]');
    for (const error of errors) {
      expect(error.message).not.toContain(FAKE_KEY);
      expect(inspect(error, { depth: 10 })).not.toContain(FAKE_KEY);
      expect(JSON.stringify(error)).not.toContain(FAKE_KEY);
    }
  });

  it('takes OPENAI_API_KEY when none is given, else sends "none"', async () => {
    const s = await start({ replies: [{ text: 'a' }, { text: 'b' }] });
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    try {
      await collect(new OpenAiLlm({ baseUrl: s.url, model: 'm', requestTimeoutMs: 5000 }).stream({ messages: USER }));
      vi.stubEnv('OPENAI_API_KEY', '');
      await collect(new OpenAiLlm({ baseUrl: s.url, model: 'm', requestTimeoutMs: 5000 }).stream({ messages: USER }));
    } finally {
      vi.unstubAllEnvs();
    }
    expect(s.requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-from-env', 'Bearer none']);
  });

  it('refuses a URL with a user and password (fetch would), without showing them', async () => {
    const s = await start({ replies: [{ text: 'never' }] });
    const url = new URL(s.url);
    url.username = 'user';
    url.password = 'hunter2';
    const { error } = await collect(llmFor({ url: url.toString() }, { model: 'm' }).stream({ messages: USER }));
    expect(error?.code).toBe('LLM_UNREACHABLE');
    expect(s.requests).toHaveLength(0);
    expect(error?.message).not.toContain('hunter2');
    expect(inspect(error, { depth: 10 })).not.toContain('hunter2');
    expect(error?.message).toContain(`http://${url.host}/v1`);
  });
});
