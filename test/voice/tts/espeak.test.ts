import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHUNK_SAMPLES, EspeakTts, TTS_BAD_OPTIONS, TTS_CANCELLED, TTS_ENGINE_FAILED, TTS_TIMEOUT, TTS_VOICE_UNKNOWN, type EspeakOptions } from '../../../src/voice/tts/index.js';
import { SAMPLE_RATE } from '../../../src/voice/types.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { concatSamples } from '../../../src/voice/audio/index.js';
import { collect, failure } from '../../helpers/outcomes.js';

type Event = 'spawn' | 'chunk' | 'exit';

/** Starts the real espeak-ng and records, in one list with the consumer's chunks, when it exits. */
function watchingSpawn(events: Event[], children: ChildProcessWithoutNullStreams[] = []): NonNullable<EspeakOptions['spawn']> {
  return (command, args, options) => {
    const child = spawn(command, args, options);
    events.push('spawn');
    child.on('exit', () => events.push('exit'));
    children.push(child);
    return child;
  };
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

function exited(child: ChildProcessWithoutNullStreams): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode ?? child.exitCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
}

const LONG_EN = Array.from({ length: 40 }, (_, i) => `This is sentence number ${i + 1} of a long text that keeps going.`).join(' ');

describe('EspeakTts', () => {
  const tts = new EspeakTts();

  it.each([
    ['en', 'The weather in Rome is sunny today.'],
    ['it', 'Domani a Roma ci sarà il sole.'],
  ])('speaks %s as non-silent 16 kHz chunks of 100 ms', async (language, text) => {
    const chunks = await collect(tts.synthesize(text, { language }));
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBe(CHUNK_SAMPLES);
    expect(chunks.at(-1)!.length).toBeGreaterThan(0);
    expect(chunks.at(-1)!.length).toBeLessThanOrEqual(CHUNK_SAMPLES);
    const audio = concatSamples(chunks);
    const seconds = audio.length / SAMPLE_RATE;
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(5);
    expect(rms(audio)).toBeGreaterThan(500);
  });

  it.each([
    ['en', 'Good morning, how are you?'],
    ['it', 'Buongiorno, come stai oggi?'],
  ])('%s: three times the text is about three times the audio', async (language, sentence) => {
    const once = concatSamples(await collect(tts.synthesize(sentence, { language }))).length;
    const thrice = concatSamples(await collect(tts.synthesize(`${sentence} ${sentence} ${sentence}`, { language }))).length;
    expect(thrice / once).toBeGreaterThan(2.4);
    expect(thrice / once).toBeLessThan(3.6);
  });

  it('speaks Italian with the Italian voice: the same text sounds different in English', async () => {
    const text = 'Ciao, come stai?';
    const it = concatSamples(await collect(tts.synthesize(text, { language: 'it' })));
    const en = concatSamples(await collect(tts.synthesize(text, { language: 'en' })));
    expect(it.length).not.toBe(en.length);
  });

  it('yields the first chunk before espeak-ng has finished a long text', async () => {
    const events: Event[] = [];
    const watched = new EspeakTts({ spawn: watchingSpawn(events) });
    for await (const _chunk of watched.synthesize(LONG_EN, { language: 'en' })) events.push('chunk');
    expect(events[0]).toBe('spawn');
    expect(events.indexOf('chunk')).toBeGreaterThan(0);
    expect(events.indexOf('chunk')).toBeLessThan(events.indexOf('exit'));
    // Most of the audio is still to come when the process exits: it was streamed, not collected.
    expect(events.filter((e) => e === 'chunk').length).toBeGreaterThan(200);
  });

  it('abort kills espeak-ng and ends with TTS_CANCELLED', async () => {
    const events: Event[] = [];
    const children: ChildProcessWithoutNullStreams[] = [];
    const watched = new EspeakTts({ spawn: watchingSpawn(events, children) });
    const controller = new AbortController();
    let received = 0;
    const { code } = await failure(async () => {
      for await (const _chunk of watched.synthesize(LONG_EN, { language: 'en', signal: controller.signal })) {
        received += 1;
        if (received === 2) controller.abort();
      }
    });
    expect(code).toBe(TTS_CANCELLED);
    expect(received).toBe(2);
    expect(await exited(children[0]!)).toBe('SIGTERM');
  });

  it('an already aborted signal starts nothing', async () => {
    const events: Event[] = [];
    const watched = new EspeakTts({ spawn: watchingSpawn(events) });
    const { code } = await failure(() => collect(watched.synthesize('Hello.', { language: 'en', signal: AbortSignal.abort() })));
    expect(code).toBe(TTS_CANCELLED);
    expect(events).toEqual([]);
  });

  it('a consumer that stops early leaves no process behind', async () => {
    const children: ChildProcessWithoutNullStreams[] = [];
    const watched = new EspeakTts({ spawn: watchingSpawn([], children) });
    for await (const _chunk of watched.synthesize(LONG_EN, { language: 'en' })) break;
    // SIGTERM, or SIGPIPE when espeak-ng writes to the pipe closed just before: stopped either way.
    expect(['SIGTERM', 'SIGPIPE']).toContain(await exited(children[0]!));
  });

  it('an unknown voice is a clear error naming it', async () => {
    const bad = new EspeakTts({ voices: { en: 'zz-nope' } });
    const { code, message } = await failure(() => collect(bad.synthesize('Hello.', { language: 'en' })));
    expect(code).toBe(TTS_VOICE_UNKNOWN);
    expect(message).toContain('"zz-nope"');
    expect(message).toContain('language en');
  });

  it('a language without a table entry is tried as a voice name, and named when espeak-ng lacks it', async () => {
    expect(tts.voiceFor('de')).toBe('de');
    expect(tts.voiceFor('en-gb')).toBe('en-us');
    expect(new EspeakTts({ voices: { 'en-gb': 'en-gb' } }).voiceFor('en-gb')).toBe('en-gb');
    const { code, message } = await failure(() => collect(tts.synthesize('Hello.', { language: 'qq' })));
    expect(code).toBe(TTS_VOICE_UNKNOWN);
    expect(message).toContain('"qq"');
  });

  it('a program that is not there is TTS_ENGINE_FAILED', async () => {
    const missing = new EspeakTts({ program: '/nonexistent/espeak-ng' });
    const { code, message } = await failure(() => collect(missing.synthesize('Hello.', { language: 'en' })));
    expect(code).toBe(TTS_ENGINE_FAILED);
    expect(message).toContain('/nonexistent/espeak-ng');
  });

  it('text that looks like an option is spoken, not parsed (it goes on stdin)', async () => {
    const audio = concatSamples(await collect(tts.synthesize('-v xx minus five degrees.', { language: 'en' })));
    expect(audio.length / SAMPLE_RATE).toBeGreaterThan(0.8);
  });

  it('empty text gives no audio and starts no process', async () => {
    const events: Event[] = [];
    const watched = new EspeakTts({ spawn: watchingSpawn(events) });
    expect(await collect(watched.synthesize('  ', { language: 'en' }))).toEqual([]);
    expect(events).toEqual([]);
  });

  it('a higher rate gives shorter audio; a rate espeak-ng refuses is a bad option', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const slow = concatSamples(await collect(new EspeakTts({ rate: 120 }).synthesize(text, { language: 'en' }))).length;
    const fast = concatSamples(await collect(new EspeakTts({ rate: 300 }).synthesize(text, { language: 'en' }))).length;
    expect(fast).toBeLessThan(slow * 0.6);
    expect(() => new EspeakTts({ rate: 20 })).toThrowError(expect.objectContaining({ code: TTS_BAD_OPTIONS }));
  });

  describe('stall timeout (virtual time)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('a program that gives no audio is stopped with TTS_TIMEOUT', async () => {
      const dir = await makeTempDir('tts-espeak-');
      try {
        const program = await dir.write('hang.sh', '#!/bin/sh\nexec sleep 30\n', 0o755);
        const children: ChildProcessWithoutNullStreams[] = [];
        const stuck = new EspeakTts({ program, timeoutMs: 5000, spawn: watchingSpawn([], children) });
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
        const result = failure(() => collect(stuck.synthesize('Hello.', { language: 'en' })));
        await vi.advanceTimersByTimeAsync(5000);
        const { code, message } = await result;
        expect(code).toBe(TTS_TIMEOUT);
        expect(message).toContain('5000 ms');
        expect(await exited(children[0]!)).toBe('SIGTERM');
      } finally {
        await dir.remove();
      }
    });

    it('time the consumer holds a chunk does not count', async () => {
      const patient = new EspeakTts({ timeoutMs: 5000 });
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let chunks = 0;
      for await (const _chunk of patient.synthesize(LONG_EN, { language: 'en' })) {
        // As a playback-paced consumer would: far longer than the timeout, in total and per chunk.
        if (chunks++ % 100 === 0) await vi.advanceTimersByTimeAsync(20_000);
      }
      expect(chunks).toBeGreaterThan(200);
    });
  });
});
