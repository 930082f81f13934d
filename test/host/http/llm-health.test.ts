/**
 * The LLM's health as /state shows it, in virtual time: a failed turn
 * probes the server; a server that does not answer is missing (an
 * llm.server event, the words in the provider's detail) until a probe or a
 * reply says it serves; a cancelled turn probes nothing. The terminal's
 * line for each change.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAssistantBus, type AssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { LlmHealth } from '../../../src/host/http/index.js';
import { describeEvent as terminalLine } from '../../../src/host/terminal/index.js';

const URL = 'http://127.0.0.1:8181/v1';

describe('the LLM health', () => {
  let bus: AssistantBus;
  let events: AssistantEvent[];
  let serving: boolean;
  let probes: number;
  let health: LlmHealth;

  beforeEach(() => {
    vi.useFakeTimers();
    bus = createAssistantBus();
    events = [];
    bus.subscribe((event) => events.push(event));
    serving = true;
    probes = 0;
    health = new LlmHealth(bus, URL, {
      probe: async () => {
        probes += 1;
        if (!serving) throw new Error(`the LLM server at ${URL} does not answer: connection refused`);
      },
    });
  });
  afterEach(() => {
    health.close();
    vi.useRealTimers();
  });

  const turnError = (code: string, message: string) => bus.emit({ type: 'error', stage: 'llm', code, message, recoverable: true, atMs: Date.now() });
  const serverEvents = () => events.filter((event) => event.type === 'llm.server');

  it('a broken reply from a server that is gone: missing in words, one event, until a probe finds it serving', async () => {
    serving = false;
    turnError('LLM_STREAM_BROKEN', `the reply from the LLM server at ${URL} broke off: connection closed by the server`);
    await vi.advanceTimersByTimeAsync(0);
    expect(health.missing?.message).toMatch(/^the LLM server at http:\/\/127\.0\.0\.1:8181\/v1 does not answer: connection refused\. /);
    expect(health.current).toEqual({ name: `llm ${URL}`, health: 'error', detail: health.missing!.message });
    expect(serverEvents()).toEqual([expect.objectContaining({ type: 'llm.server', status: 'lost', url: URL, message: health.missing!.message })]);

    await vi.advanceTimersByTimeAsync(5000);
    expect(health.missing).toBeDefined();
    serving = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(health.missing).toBeUndefined();
    expect(health.current).toEqual({ name: `llm ${URL}`, health: 'ok' });
    expect(serverEvents().map((event) => event.type === 'llm.server' && event.status)).toEqual(['lost', 'restored']);
  });

  it('a failed turn against a server that answers the probe: the error stays the turn\'s, nothing is missing', async () => {
    turnError('LLM_HTTP_ERROR', `the LLM server at ${URL} answered the chat request with HTTP 500: out of memory`);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probes).toBe(1);
    expect(health.missing).toBeUndefined();
    expect(health.current).toMatchObject({ health: 'error', detail: expect.stringContaining('HTTP 500') });
    expect(serverEvents()).toEqual([]);
  });

  it('a cancelled turn or a capped reply probes nothing', async () => {
    turnError('LLM_CANCELLED', 'the LLM request was cancelled');
    turnError('LLM_REPLY_CAPPED', 'the reply was cut off');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probes).toBe(0);
  });

  it('a first token clears a missing server at once', async () => {
    serving = false;
    health.check();
    await vi.advanceTimersByTimeAsync(0);
    expect(health.missing).toBeDefined();
    bus.emit({ type: 'llm.first_token', stage: 'llm', latencyMs: 40, atMs: Date.now() });
    expect(health.missing).toBeUndefined();
    const before = probes;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probes).toBe(before);
  });

  it('the terminal prints a line when it goes and one when it is back', async () => {
    serving = false;
    health.check();
    await vi.advanceTimersByTimeAsync(1500);
    serving = true;
    await vi.advanceTimersByTimeAsync(1000);
    const lines = serverEvents().map(terminalLine);
    expect(lines).toEqual([
      expect.stringMatching(/^\[llm\] the LLM server at http:\/\/127\.0\.0\.1:8181\/v1 does not answer: connection refused\. /),
      '[llm] the LLM server at http://127.0.0.1:8181/v1 answers again after 1.8 s',
    ]);
  });

  it('no credentials of the URL in what it shows', () => {
    const other = new LlmHealth(bus, 'http://user:s3cret-pass@127.0.0.1:8181/v1');
    expect(other.url).toBe(URL);
    expect(JSON.stringify(other.current)).not.toContain('s3cret');
    other.close();
  });
});
