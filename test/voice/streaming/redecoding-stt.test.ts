import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedecodingStt } from '../../../src/voice/streaming/index.js';
import type { PartialTranscript, Stt } from '../../../src/voice/types.js';
import { failure } from '../../helpers/outcomes.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A batch engine whose decodes wait for `release` (a partial still decoding); it hears one word per 1600 samples. */
function slowEngine(): Stt & { release: () => void; decodes: number[] } {
  const waiting: Array<() => void> = [];
  const engine = {
    name: 'slow',
    decodes: [] as number[],
    release: () => waiting.splice(0).forEach((go) => go()),
    async *transcribe(audio: Int16Array) {
      engine.decodes.push(audio.length);
      if (engine.decodes.length === 1) await new Promise<void>((resolve) => waiting.push(resolve));
      yield { text: 'word '.repeat(Math.floor(audio.length / 1600)).trim(), final: true };
    },
    close: async () => undefined,
  };
  return engine;
}

describe('a batch engine behind the streaming contract', () => {
  it('re-decodes for partials on the caller timers, and finishes with the whole utterance without waiting for a partial in flight', async () => {
    const engine = slowEngine();
    const stt = new RedecodingStt(engine, { partialIntervalMs: 200, minAudioMs: 0 });
    const session = stt.startUtterance({ timers: { set: (fire, ms) => setTimeout(fire, ms), clear: (handle) => clearTimeout(handle as NodeJS.Timeout) } });
    const partials: PartialTranscript[] = [];
    session.onPartial((p) => partials.push(p));
    session.push(new Int16Array(3200));
    await vi.advanceTimersByTimeAsync(200);
    // The first partial decode is under way and stays so.
    expect(engine.decodes).toEqual([3200]);
    session.push(new Int16Array(1600));
    const final = await session.finish();
    expect(final).toEqual({ text: 'word word word', final: true });
    expect(engine.decodes).toEqual([3200, 4800]);
    engine.release();
    await vi.advanceTimersByTimeAsync(1000);
    // A partial that ends after the final is not reported.
    expect(partials).toEqual([]);
  });

  it('without partials decodes once at the end; a cancelled utterance rejects its finish', async () => {
    const decodes: number[] = [];
    const engine: Stt = {
      name: 'once',
      async *transcribe(audio) {
        decodes.push(audio.length);
        yield { text: 'hello', final: true, language: 'en' };
      },
      close: async () => undefined,
    };
    const stt = new RedecodingStt(engine, { partialIntervalMs: 0 });
    const session = stt.startUtterance();
    session.push(new Int16Array(320));
    session.push(new Int16Array(320));
    await vi.advanceTimersByTimeAsync(5000);
    expect(decodes).toEqual([]);
    expect(await session.finish()).toEqual({ text: 'hello', final: true, language: 'en' });
    expect(decodes).toEqual([640]);
    const cut = stt.startUtterance();
    cut.push(new Int16Array(320));
    cut.cancel();
    cut.cancel();
    expect((await failure(cut.finish())).code).toBe('STT_CANCELLED');
    expect(decodes).toEqual([640]);
  });
});
