import { describe, expect, it } from 'vitest';
import { ResidentPocketsphinxStt, STT_CANCELLED, STT_ENGINE_FAILED, STT_MODEL_MISSING } from '../../../src/voice/stt/index.js';
import type { PartialTranscript } from '../../../src/voice/types.js';
import { failure } from '../../helpers/outcomes.js';
import { scriptedDecoder, type ScriptedDecoderOptions } from '../../fakes/scripted-decoder.js';

const FRAME = 320;
const frame = (): Int16Array => new Int16Array(FRAME);
/** Lets the decoder queue run (its calls resolve on later turns of the event loop). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

async function engine(options: ScriptedDecoderOptions, settings: { partialIntervalMs?: number; stableAfterMs?: number; innerStableAfterMs?: number; resetNormalisation?: boolean } = {}) {
  const decoder = scriptedDecoder(options);
  const stt = await ResidentPocketsphinxStt.create({ ...settings, createDecoder: async () => decoder });
  return { stt, decoder };
}

describe('the resident decoder behind the streaming contract', () => {
  it('decodes frames as they come: partials in order with a stable prefix that holds, then the final', async () => {
    const { stt, decoder } = await engine({ words: ['what', 'is', 'the', 'weather', 'in', 'rome'] }, { partialIntervalMs: 100, stableAfterMs: 200, innerStableAfterMs: 200 });
    const session = stt.startUtterance();
    const partials: PartialTranscript[] = [];
    session.onPartial((p) => partials.push(p));
    for (let i = 0; i < 30; i++) {
      session.push(frame());
      await settle();
    }
    expect(partials.map((p) => p.text)).toEqual(['what', 'what is', 'what is the', 'what is the weather', 'what is the weather in', 'what is the weather in rome']);
    expect(partials.map((p) => p.audioMs)).toEqual([100, 200, 300, 400, 500, 600]);
    // A word is stable once it survived 200 ms of audio in every hypothesis.
    expect(partials.map((p) => p.stable)).toEqual(['', '', 'what', 'what is', 'what is the', 'what is the weather']);
    for (const p of partials) expect(p.text.startsWith(p.stable)).toBe(true);
    const final = await session.finish();
    expect(final).toEqual({ text: 'what is the weather in rome', final: true, language: 'en', confidence: 0.9 });
    expect(decoder.calls[0]).toBe('start');
    expect(decoder.calls.at(-1)).toBe('end');
    // A hypothesis every 100 ms of audio (5 frames), not on every frame.
    expect(decoder.calls.filter((c) => c === 'process+hyp')).toHaveLength(6);
  });

  it('takes a pre-roll at once and batches the frames that came while the decoder was busy', async () => {
    let release: () => void = () => undefined;
    let gated = true;
    const gate = () => (gated ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve());
    const { stt, decoder } = await engine({ words: ['hello'], gate });
    const session = stt.startUtterance();
    session.push(new Int16Array(15 * FRAME));
    await settle();
    for (let i = 0; i < 4; i++) session.push(frame());
    await settle();
    gated = false;
    release();
    const final = await session.finish();
    expect(final.text).toBe('hello');
    // The pre-roll in one call, then the four frames pushed meanwhile in one more.
    expect(decoder.batches).toEqual([15 * FRAME, 4 * FRAME]);
  });

  it('cancels idempotently: finish rejects, the decoder ends the utterance, and the next one starts clean', async () => {
    const { stt, decoder } = await engine({ words: ['stop', 'talking', 'please'] });
    const cut = stt.startUtterance();
    const partials: PartialTranscript[] = [];
    cut.onPartial((p) => partials.push(p));
    for (let i = 0; i < 10; i++) cut.push(frame());
    cut.cancel();
    cut.cancel();
    cut.push(frame());
    expect((await failure(cut.finish())).code).toBe(STT_CANCELLED);
    await settle();
    expect(decoder.calls.filter((c) => c === 'end')).toHaveLength(1);
    expect(partials).toEqual([]);

    const next = stt.startUtterance();
    for (let i = 0; i < 5; i++) next.push(frame());
    expect((await next.finish()).text).toBe('stop');
    expect(decoder.utterances).toBe(2);
  });

  it('an utterance cut by a barge-in (its turn aborted) drops its words; the interrupting one is heard alone', async () => {
    const { stt } = await engine({ words: ['one', 'two', 'three', 'four', 'five', 'six'] });
    const turn = new AbortController();
    const first = stt.startUtterance({ signal: turn.signal });
    for (let i = 0; i < 15; i++) first.push(frame());
    const finishing = first.finish();
    turn.abort(new Error('barge-in'));
    expect((await failure(finishing)).code).toBe(STT_CANCELLED);
    const interrupting = stt.startUtterance();
    for (let i = 0; i < 10; i++) interrupting.push(frame());
    expect((await interrupting.finish()).text).toBe('one two');
  });

  it('starting an utterance while one is open ends the open one, in order', async () => {
    const { stt, decoder } = await engine({ words: ['a', 'b', 'c'] });
    const left = stt.startUtterance();
    left.push(frame());
    const next = stt.startUtterance();
    for (let i = 0; i < 5; i++) next.push(frame());
    expect((await failure(left.finish())).code).toBe(STT_CANCELLED);
    expect((await next.finish()).text).toBe('a');
    expect(decoder.calls.filter((c) => c === 'start' || c === 'end')).toEqual(['start', 'end', 'start', 'end']);
  });

  it('reports a decoder failure on finish and recovers for the next utterance', async () => {
    const { stt } = await engine({ words: ['yes'], failOnCall: 2 });
    const broken = stt.startUtterance();
    for (let i = 0; i < 3; i++) {
      broken.push(frame());
      await settle();
    }
    const error = await failure(broken.finish());
    expect(error.code).toBe(STT_ENGINE_FAILED);
    expect(error.message).toContain('decoder crashed (test)');
    const next = stt.startUtterance();
    for (let i = 0; i < 5; i++) next.push(frame());
    expect((await next.finish()).text).toBe('yes');
  });

  it('re-seeds the normalisation before each utterance only when asked', async () => {
    const kept = await engine({ words: [] });
    await kept.stt.startUtterance().finish();
    expect(kept.decoder.calls).not.toContain('reset');
    const reset = await engine({ words: [] }, { resetNormalisation: true });
    await reset.stt.startUtterance().finish();
    expect(reset.decoder.calls.slice(0, 2)).toEqual(['reset', 'start']);
  });

  it('an empty utterance is an empty final without a confidence; close ends the engine', async () => {
    const { stt } = await engine({ words: ['x'] });
    expect(await stt.startUtterance().finish()).toEqual({ text: '', final: true, language: 'en' });
    await stt.close();
    await stt.close();
    expect(() => stt.startUtterance()).toThrow(expect.objectContaining({ code: STT_ENGINE_FAILED }));
  });

  it('names a model file that is missing before loading anything', async () => {
    let created = 0;
    const attempt = ResidentPocketsphinxStt.create({ hmm: '/nonexistent/en-us', createDecoder: async () => (created++, scriptedDecoder({ words: [] })) });
    expect(await failure(attempt)).toMatchObject({ code: STT_MODEL_MISSING, message: expect.stringContaining('/nonexistent/en-us') });
    expect(created).toBe(0);
  });
});
