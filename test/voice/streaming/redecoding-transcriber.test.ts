import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedecodingTranscriber, stablePrefix, type PartialTranscript } from '../../../src/voice/streaming/index.js';
import type { Stt } from '../../../src/voice/types.js';

/** Hears, for an utterance of n samples, the first n / 1600 words of `words` (one word per 100 ms of audio). */
function wordsPerTenthSecond(words: string[], decodes: number[] = []): Stt {
  return {
    name: 'growing',
    async *transcribe(audio) {
      decodes.push(audio.length);
      yield { text: words.slice(0, Math.floor(audio.length / 1600)).join(' '), final: true };
    },
    close: async () => undefined,
  };
}

const tenth = (): Int16Array => new Int16Array(1600);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('RedecodingTranscriber', () => {
  it('decodes the growing utterance at an interval: partials, their stable prefix, then one final', async () => {
    const decodes: number[] = [];
    const stt = wordsPerTenthSecond(['what', 'is', 'the', 'weather', 'in', 'rome', 'today'], decodes);
    const transcriber = new RedecodingTranscriber(stt, { intervalMs: 200, minAudioMs: 300 });
    const partials: PartialTranscript[] = [];
    transcriber.onPartial((p) => partials.push(p));

    for (let i = 0; i < 6; i++) {
      transcriber.push(tenth());
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(partials.map((p) => p.text)).toEqual(['what is the weather', 'what is the weather in rome']);
    expect(partials.map((p) => p.stable)).toEqual(['', 'what is the weather']);
    transcriber.push(tenth());
    const final = await transcriber.finish();
    expect(final).toEqual({ text: 'what is the weather in rome today', final: true });
    // No partial after the end, whatever the timers do.
    await vi.advanceTimersByTimeAsync(1000);
    expect(partials).toHaveLength(2);
    expect(decodes.at(-1)).toBe(7 * 1600);
  });

  it('gives no partial before the minimum audio, and skips a tick while a decode is still running', async () => {
    let release: (() => void) | undefined;
    let started = 0;
    const slow: Stt = {
      name: 'slow',
      async *transcribe() {
        started += 1;
        await new Promise<void>((resolve) => (release = resolve));
        yield { text: 'hello', final: true };
      },
      close: async () => undefined,
    };
    const transcriber = new RedecodingTranscriber(slow, { intervalMs: 100, minAudioMs: 250 });
    transcriber.push(tenth());
    await vi.advanceTimersByTimeAsync(300);
    expect(started).toBe(0);
    transcriber.push(tenth());
    transcriber.push(tenth());
    await vi.advanceTimersByTimeAsync(500);
    expect(started).toBe(1);
    release?.();
    transcriber.stop();
  });

  it('a failing partial decode is skipped quietly; the final one reports', async () => {
    let calls = 0;
    const flaky: Stt = {
      name: 'flaky',
      async *transcribe() {
        calls += 1;
        throw new Error(`decode ${calls} failed`);
      },
      close: async () => undefined,
    };
    const transcriber = new RedecodingTranscriber(flaky, { intervalMs: 100, minAudioMs: 0 });
    transcriber.push(tenth());
    await vi.advanceTimersByTimeAsync(250);
    await expect(transcriber.finish()).rejects.toThrow(/failed/);
  });
});

describe('stablePrefix', () => {
  it.each([
    ['what is the', 'what is the weather', 'what is the'],
    ['what is', 'What is the', 'What is'],
    ['what time', 'what is the', 'what'],
    ['', 'hello', ''],
    ['turn on the light.', 'turn on the lights', 'turn on the'],
  ])('%j then %j -> %j', (before, now, expected) => {
    expect(stablePrefix(before, now)).toBe(expected);
  });
});
