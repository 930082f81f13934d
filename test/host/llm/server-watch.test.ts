/**
 * The LLM server watch in virtual time: no probe while the server is
 * healthy and idle, a probe at once when a request failed, then a backoff
 * of 250, 500 and 1000 ms (repeated) while it does not answer, and the
 * missing state cleared by the first probe (or reply) that says it serves.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LlmServerWatch, type LlmServerChange, type LlmServerProbe } from '../../../src/host/llm/index.js';

const URL = 'http://127.0.0.1:8181/v1';

/** A probe whose answer the test sets; it records when each probe was sent (virtual ms since the start). */
function scriptedProbe(start: number) {
  const state = { serving: false, hang: false, reason: `the LLM server at ${URL} does not answer: connection refused`, sentAt: [] as number[] };
  const probe: LlmServerProbe = (signal) => {
    state.sentAt.push(Date.now() - start);
    if (state.hang) return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    return state.serving ? Promise.resolve() : Promise.reject(new Error(state.reason));
  };
  return { probe, state };
}

describe('the LLM server watch', () => {
  let start: number;
  let watch: LlmServerWatch | undefined;
  beforeEach(() => {
    vi.useFakeTimers();
    start = Date.now();
  });
  afterEach(() => {
    watch?.close();
    vi.useRealTimers();
  });

  function watchWith(probe: LlmServerProbe, probeTimeoutMs?: number) {
    const changes: LlmServerChange[] = [];
    watch = new LlmServerWatch({ url: URL, probe, ...(probeTimeoutMs === undefined ? {} : { probeTimeoutMs }) });
    watch.subscribe((change) => changes.push(change));
    return { watch, changes };
  }

  it('sends nothing while the server is healthy and idle', async () => {
    const { probe, state } = scriptedProbe(start);
    const { watch } = watchWith(probe);
    await vi.advanceTimersByTimeAsync(60_000);
    watch.served();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.sentAt).toEqual([]);
    expect(watch.checking).toBe(false);
  });

  it('a check against a serving server is one probe, then nothing', async () => {
    const { probe, state } = scriptedProbe(start);
    state.serving = true;
    const { watch, changes } = watchWith(probe);
    watch.check();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(state.sentAt).toEqual([0]);
    expect(watch.missing).toBeUndefined();
    expect(changes).toEqual([]);
    expect(watch.checking).toBe(false);
  });

  it('marks the server missing at the first failed probe and backs off 250, 500, then every 1000 ms', async () => {
    const { probe, state } = scriptedProbe(start);
    const { watch, changes } = watchWith(probe);
    watch.check();
    await vi.advanceTimersByTimeAsync(0);
    expect(watch.missing).toEqual({ message: expect.stringContaining(`the LLM server at ${URL} does not answer: connection refused`), sinceMs: start });
    expect(changes).toEqual([{ status: 'lost', missing: watch.missing }]);
    await vi.advanceTimersByTimeAsync(4750);
    expect(state.sentAt).toEqual([0, 250, 750, 1750, 2750, 3750, 4750]);
    // Told once, however many probes fail.
    expect(changes).toHaveLength(1);
  });

  it('a second check while probing starts no second loop', async () => {
    const { probe, state } = scriptedProbe(start);
    const { watch } = watchWith(probe);
    watch.check();
    await vi.advanceTimersByTimeAsync(100);
    watch.check();
    watch.check();
    await vi.advanceTimersByTimeAsync(650);
    expect(state.sentAt).toEqual([0, 250, 750]);
  });

  it('clears at the first probe after the server serves again, and stops probing', async () => {
    const { probe, state } = scriptedProbe(start);
    const { watch, changes } = watchWith(probe);
    watch.check();
    await vi.advanceTimersByTimeAsync(3000);
    state.serving = true;
    const servingSince = Date.now() - start;
    await vi.advanceTimersByTimeAsync(1000);
    expect(watch.missing).toBeUndefined();
    const clearedAt = state.sentAt.at(-1)!;
    expect(clearedAt - servingSince).toBeLessThanOrEqual(1000);
    expect(changes.at(-1)).toEqual({ status: 'restored', message: `the LLM server at ${URL} answers again after ${(clearedAt / 1000).toFixed(1)} s`, missingMs: clearedAt });
    const probes = state.sentAt.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(state.sentAt).toHaveLength(probes);
    expect(watch.checking).toBe(false);
  });

  it('a reply clears the missing state at once and stops the probes', async () => {
    const { probe, state } = scriptedProbe(start);
    const { watch, changes } = watchWith(probe);
    watch.check();
    await vi.advanceTimersByTimeAsync(300);
    watch.served();
    expect(watch.missing).toBeUndefined();
    expect(changes.map((c) => c.status)).toEqual(['lost', 'restored']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(state.sentAt).toEqual([0, 250]);
  });

  it('a probe that gets no answer fails after its timeout, in words', async () => {
    const { probe, state } = scriptedProbe(start);
    state.hang = true;
    const { watch } = watchWith(probe, 2000);
    watch.check();
    await vi.advanceTimersByTimeAsync(1999);
    expect(watch.missing).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(watch.missing?.message).toContain(`the LLM server at ${URL} does not answer: nothing within 2000 ms`);
    // The next probe waits the first delay after the failed one.
    await vi.advanceTimersByTimeAsync(250);
    expect(state.sentAt).toEqual([0, 2250]);
  });

  it('the words follow the latest reason while the server stays missing', async () => {
    const { probe, state } = scriptedProbe(start);
    const { watch, changes } = watchWith(probe);
    watch.check();
    await vi.advanceTimersByTimeAsync(0);
    state.reason = `the LLM server at ${URL} answers GET /models with HTTP 503: Loading model`;
    await vi.advanceTimersByTimeAsync(250);
    expect(watch.missing).toEqual({ message: expect.stringContaining('HTTP 503: Loading model'), sinceMs: start });
    expect(changes).toHaveLength(1);
  });

  it('close stops the probes for good', async () => {
    const { probe, state } = scriptedProbe(start);
    const { watch } = watchWith(probe);
    watch.check();
    await vi.advanceTimersByTimeAsync(0);
    watch.close();
    watch.check();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(state.sentAt).toEqual([0]);
  });
});
