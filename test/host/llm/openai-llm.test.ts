import { describe, expect, it } from 'vitest';
import { LLAMA_SERVER_NO_THINKING, type ChatMessage } from '../../../src/host/llm/index.js';
import { SCRIPTED_MODEL } from '../../fakes/scripted-llm-server.js';
import { refusedUrl } from '../../helpers/http-stub.js';
import { FAKE_KEY, USER, WEATHER_TOOL, collect, doneOf, llmFor, scriptedServers, textOf } from './llm-test-kit.js';

const start = scriptedServers();

describe('OpenAiLlm: streaming', () => {
  const TEXT = 'Oggi a Roma ci sono 21,5 °C. Caffè ☕ e gelato 😀 più tardi! Ciao.';

  for (const split of [{ seed: 1 }, { seed: 2, maxBytes: 3 }, { seed: 3, maxBytes: 40 }, { seed: 4 }, { seed: 5, maxBytes: 2 }, 'bytes' as const]) {
    it(`yields the text in order and one done, whatever the byte splits (${JSON.stringify(split)})`, async () => {
      const s = await start({ split, replies: [{ text: TEXT }] });
      const { events, error } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER }));
      expect(error).toBeUndefined();
      expect(events.filter((event) => event.type === 'text').length).toBeGreaterThan(5);
      expect(textOf(events)).toBe(TEXT);
      expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
      const done = doneOf(events);
      expect(done.finishReason).toBe('stop');
      expect(done.toolCalls).toEqual([]);
      // The scripted server counts the words of the messages and one token a piece.
      expect(done.usage).toEqual({ promptTokens: 6, completionTokens: events.length - 1 });
      expect(s.requests[0]?.written.length).toBeGreaterThan(events.length);
    });
  }

  it('assembles tool-call fragments, after any text, under arbitrary splits', async () => {
    for (const seed of [11, 12, 13]) {
      const s = await start({
        split: { seed, maxBytes: 5 },
        replies: [{ text: 'Let me check.', toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }, { name: 'now', arguments: '{"tz":"Europe/Rome"}', id: 'call-b' }] }],
      });
      const { events, error } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER, tools: [WEATHER_TOOL] }));
      expect(error).toBeUndefined();
      expect(textOf(events)).toBe('Let me check.');
      const done = doneOf(events);
      expect(done.finishReason).toBe('tool_calls');
      expect(done.toolCalls).toEqual([
        { index: 0, id: 'call_0_0', name: 'weather', arguments: '{"place":"Rome"}' },
        { index: 1, id: 'call-b', name: 'now', arguments: '{"tz":"Europe/Rome"}' },
      ]);
      await s.close();
    }
  });

  it('gives a tool call without an id an empty id', async () => {
    const s = await start({ replies: [{ fail: 'missing-id', toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }] }] });
    const { events } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER }));
    expect(doneOf(events).toolCalls).toEqual([{ index: 0, id: '', name: 'weather', arguments: '{"place":"Rome"}' }]);
  });

  it('sends the messages, the tools and the tool results back as the loop will', async () => {
    const s = await start({
      replies: [
        { toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }] },
        (request) => {
          const result = request.messages.find((message) => message.role === 'tool');
          return { text: `Tool said: ${String(result?.content)}` };
        },
      ],
    });
    const llm = llmFor(s);
    const first = doneOf((await collect(llm.stream({ messages: USER, tools: [WEATHER_TOOL] }))).events);
    const call = first.toolCalls[0];
    if (call === undefined) throw new Error('no tool call');
    const messages: ChatMessage[] = [
      ...USER,
      { role: 'assistant', content: '', tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] },
      { role: 'tool', tool_call_id: call.id, content: 'sunny, 24 °C' },
    ];
    const second = await collect(llm.stream({ messages, tools: [] }));
    expect(textOf(second.events)).toBe('Tool said: sunny, 24 °C');
    expect(s.requests[0]?.tools).toEqual([WEATHER_TOOL]);
    expect(s.requests[1]?.tools).toBeUndefined();
    expect(s.requests[1]?.messages).toEqual(messages);
    expect(s.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(s.requests[0]?.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
  });

  it('asks GET /v1/models once for the model when none is configured, and uses the configured one otherwise', async () => {
    const s = await start({ models: ['qwen3-8b.gguf', 'other'], replies: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
    const auto = llmFor(s);
    await collect(auto.stream({ messages: USER }));
    await collect(auto.stream({ messages: USER }));
    expect(s.modelListRequests).toBe(1);
    await collect(llmFor(s, { model: 'chosen' }).stream({ messages: USER }));
    expect(s.modelListRequests).toBe(1);
    expect(s.requests.map((request) => request.model)).toEqual(['qwen3-8b.gguf', 'qwen3-8b.gguf', 'chosen']);
    expect(await auto.resolveModel()).toBe('qwen3-8b.gguf');
  });

  it('sends chat_template_kwargs only when configured as an extra body', async () => {
    const s = await start({ replies: [{ text: 'a' }, { text: 'b' }] });
    await collect(llmFor(s).stream({ messages: USER }));
    await collect(llmFor(s, { extraBody: LLAMA_SERVER_NO_THINKING }).stream({ messages: USER }));
    expect(s.requests[0]?.body).not.toHaveProperty('chat_template_kwargs');
    expect(s.requests[1]?.body.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(s.requests[1]?.model).toBe(SCRIPTED_MODEL);
  });

  it('does not yield reasoning_content as text', async () => {
    const s = await start({ replies: [{ reasoning: 'The user wants the weather.', text: 'Sunny.' }] });
    const { events } = await collect(llmFor(s).stream({ messages: USER }));
    expect(textOf(events)).toBe('Sunny.');
  });

  it('reports the finish reason and the usage the server sends', async () => {
    const s = await start({ replies: [(request) => ({ text: 'Cut short', finishReason: 'length', usage: { prompt_tokens: request.messages.length, completion_tokens: 1 } })] });
    const { events, error } = await collect(llmFor(s).stream({ messages: USER }));
    expect(error).toBeUndefined();
    expect(doneOf(events)).toMatchObject({ finishReason: 'length', usage: { promptTokens: 1, completionTokens: 1 } });
  });

  it('takes a reply whose connection drops after the finish reason as whole (only usage and [DONE] are lost)', async () => {
    const s = await start({ replies: [{ fail: 'cut-after-finish', text: 'All of it.', toolCalls: [{ name: 'now', arguments: '{}' }] }] });
    const { events, error } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER }));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('All of it.');
    expect(doneOf(events)).toEqual({ type: 'done', toolCalls: [{ index: 0, id: 'call_0_0', name: 'now', arguments: '{}' }], finishReason: 'tool_calls' });
  });
});

describe('OpenAiLlm: failures', () => {
  it('an unreachable URL (a freed loopback port) is LLM_UNREACHABLE naming the URL', async () => {
    const url = `${await refusedUrl()}/v1`;
    for (const model of ['m', '']) {
      const { events, error } = await collect(llmFor({ url }, { model }).stream({ messages: USER }));
      expect(events).toEqual([]);
      expect(error?.code).toBe('LLM_UNREACHABLE');
      expect(error?.message).toBe(`cannot reach the LLM server at ${url}: connection refused`);
      expect(error?.retryable).toBe(true);
    }
  });

  it('a failed or empty model list is LLM_UNREACHABLE naming the URL, and is asked again next time', async () => {
    const failing = await start({ modelsStatus: 500 });
    const llm = llmFor(failing);
    const first = await collect(llm.stream({ messages: USER }));
    expect(first.error?.code).toBe('LLM_UNREACHABLE');
    expect(first.error?.message).toContain(failing.url);
    expect(first.error?.message).toContain('HTTP 500');
    await collect(llm.stream({ messages: USER }));
    expect(failing.modelListRequests).toBe(2);
    expect(failing.requests).toHaveLength(0);
    await failing.close();

    const empty = await start({ models: [] });
    const { error } = await collect(llmFor(empty).stream({ messages: USER }));
    expect(error?.code).toBe('LLM_UNREACHABLE');
    expect(error?.message).toBe(`the LLM server at ${empty.url} lists no model: name one in the configuration (\`model\`)`);
  });

  it('an HTTP error status is LLM_HTTP_ERROR with the status and the server message, with no retry', async () => {
    const s = await start({ replies: [{ fail: 'http-500', message: 'the model crashed' }, { fail: 'http-error', status: 400, message: 'context too long' }] });
    const llm = llmFor(s, { model: 'm' });
    const server500 = await collect(llm.stream({ messages: USER }));
    expect(server500.error?.code).toBe('LLM_HTTP_ERROR');
    expect(server500.error?.message).toBe(`the LLM server at ${s.url} answered the chat request with HTTP 500: the model crashed`);
    expect(server500.error?.retryable).toBe(true);
    // maxRetries 0: the SDK would otherwise repeat a 500 twice.
    expect(s.requests).toHaveLength(1);
    const client400 = await collect(llm.stream({ messages: USER }));
    expect(client400.error?.message).toContain('HTTP 400: context too long');
    expect(client400.error?.retryable).toBe(false);
  });

  it('a connection cut mid-stream yields the text before it, then LLM_STREAM_BROKEN', async () => {
    const s = await start({ replies: [{ fail: 'cut-mid-stream', text: 'The weather in Rome is' }] });
    const { events, error } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER }));
    expect(textOf(events)).toBe('The weather in Rome is');
    expect(events.some((event) => event.type === 'done')).toBe(false);
    expect(error?.code).toBe('LLM_STREAM_BROKEN');
    expect(error?.message).toContain(s.url);
  });

  it('a stream that ends without a finish reason is LLM_STREAM_BROKEN after its text', async () => {
    const s = await start({ replies: [{ fail: 'end-without-finish', text: 'Half an' }] });
    const { events, error } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER }));
    expect(textOf(events)).toBe('Half an');
    expect(error?.code).toBe('LLM_STREAM_BROKEN');
    expect(error?.message).toContain('no finish reason');
  });

  it('a chunk that is not JSON is LLM_STREAM_BROKEN, without quoting the chunk', async () => {
    const s = await start({ replies: [{ fail: 'malformed-json', text: 'Before it' }] });
    const { events, error } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER }));
    expect(textOf(events)).toBe('Before it');
    expect(error?.code).toBe('LLM_STREAM_BROKEN');
    expect(error?.message).toContain('not JSON');
    expect(error?.message).not.toContain('oops');
  });

  it("llama-server's mid-stream error event is LLM_STREAM_BROKEN with the server message", async () => {
    const s = await start({ replies: [{ fail: 'error-event', text: 'Partly', message: 'the context is full' }] });
    const { events, error } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER }));
    expect(textOf(events)).toBe('Partly');
    expect(error?.code).toBe('LLM_STREAM_BROKEN');
    expect(error?.message).toContain('the context is full');
  });

  it('a connection closed before any response is LLM_UNREACHABLE', async () => {
    const s = await start({ replies: [{ fail: 'reset' }] });
    const { error } = await collect(llmFor(s, { model: 'm' }).stream({ messages: USER }));
    expect(error?.code).toBe('LLM_UNREACHABLE');
    expect(error?.message).toContain(s.url);
  });
});
