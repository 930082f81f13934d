/**
 * Kokoro through the real path, with a stand-in for the weights
 * (scripts/make-kokoro-standin.py): the folder checks, kokoro-js and
 * transformers.js loading it locally, onnxruntime-node running the graph,
 * the voice blends from kokoro-js's voice files, the 24 -> 16 kHz
 * conversion, next to the Silero VAD. The stand-in speaks one tone per
 * token, so the audio tells which tokens and which style row the model was
 * given.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concatSamples } from '../../../src/voice/audio/index.js';
import { KokoroTts, loadVoiceBlend, phonemize, styleForLength, type KokoroOptions } from '../../../src/voice/tts/index.js';
import { SAMPLE_RATE } from '../../../src/voice/types.js';
import { SILERO_WINDOW_SAMPLES, SileroVad } from '../../../src/voice/vad/index.js';
import {
  HZ_TOLERANCE,
  KOKORO_JS_VOICES,
  STANDIN,
  TONE_EDGE,
  expectedTones,
  makeKokoroStandin,
  measureHz,
  rms,
  samplesPerToken,
  standinVocab,
  tokenIds,
  tonesHeard,
} from '../../helpers/kokoro-standin.js';
import { collect } from '../../helpers/outcomes.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

const LANGUAGES: KokoroOptions['languages'] = {
  it: { lang: 'it', blend: { if_sara: 0.8, af_bella: 0.2 } },
  en: { lang: 'en-us', blend: { af_heart: 1 } },
};

/** Stands in for the network from loading on: records every request and answers none. */
const requests: string[] = [];
const realFetch = globalThis.fetch;

let dir: TempDir;
let model: string;
let vocab: Map<string, number>;
let vad: SileroVad;
let tts: KokoroTts;
beforeAll(async () => {
  globalThis.fetch = async (input: string | URL | Request) => {
    requests.push(String(input instanceof Request ? input.url : input));
    throw new Error('no network in tests');
  };
  dir = await makeTempDir('tts-kokoro-standin-');
  model = await makeKokoroStandin(join(dir.path, 'Kokoro-82M-v1.0-ONNX'));
  vocab = await standinVocab(model);
  // The VAD first, as in a voice turn: its onnxruntime-node is the process's.
  vad = await SileroVad.load();
  tts = await KokoroTts.create({ model, voices: KOKORO_JS_VOICES, languages: LANGUAGES });
}, 60_000);
afterAll(async () => {
  globalThis.fetch = realFetch;
  await tts?.close();
  await vad?.close();
  await dir.remove();
});

/** Each token's segment silent for a pad, else the tone of its id with `style`. */
function expectTones(samples: Int16Array, ids: readonly number[], style: Float32Array, per: number): void {
  expect(samples.length).toBe(ids.length * per);
  expect(tonesHeard(samples, ids, style, per, SAMPLE_RATE)).toEqual(expectedTones(ids));
  const peak = samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0);
  expect(peak / 32767).toBeCloseTo(STANDIN.amplitude, 1);
}

describe('the stand-in folder', () => {
  it("loads locally next to the Silero VAD: transformers.js runs on the process's onnxruntime-node, both models answer, nothing is fetched", async () => {
    const [ort, { env }] = await Promise.all([import('onnxruntime-node'), import('@huggingface/transformers')]);
    expect(env.backends.onnx).toBe(ort.env);
    expect(await vad.probability(new Int16Array(SILERO_WINDOW_SAMPLES))).toBeLessThan(0.5);
    expect(concatSamples(await collect(tts.synthesize('Hello.', { language: 'en' }))).length).toBeGreaterThan(0);
    expect(requests).toEqual([]);
  });

  it("tokenizes phonemes as Kokoro v1.0 does: its vocabulary's ids, a pad at each end, unknown symbols dropped", async () => {
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    const tokenizer = await AutoTokenizer.from_pretrained(model);
    const ids = (phonemes: string): number[] => Array.from((tokenizer(phonemes) as { input_ids: { data: BigInt64Array } }).input_ids.data, Number);
    // Kokoro v1.0's config: h 50, ə 83, l 54, ˈ 156, o 57, ʊ 135, ',' 3, ' ' 16, w 65, ɜ 87, ː 158, d 46, '!' 5.
    expect(ids('həlˈoʊ, wˈɜːld!')).toEqual([0, 50, 83, 54, 156, 57, 135, 3, 16, 65, 156, 87, 158, 54, 46, 5, 0]);
    // t 62, ʃ 131, a 43, ɲ 114, ʎ 143, ɡ 92; ASCII g and « are not in it.
    expect(ids('tʃˈao ɲʎ ɡg«')).toEqual([0, 62, 131, 156, 43, 57, 16, 114, 143, 16, 92, 0]);
    expect(requests).toEqual([]);
  });
});

describe('KokoroTts on the stand-in', () => {
  it.each([
    ['en', 'Hello, world!'],
    ['it', 'Ciao, come stai?'],
  ])('speaks a sentence in %s: a tone per token of its phonemes, in its blend, at 16 kHz, nothing fetched', async (language, sentence) => {
    const { lang, blend } = LANGUAGES[language]!;
    const samples = concatSamples(await collect(tts.synthesize(sentence, { language })));
    const ids = tokenIds(await phonemize(sentence, lang), vocab);
    // The style row is the one for the phonemes between the pads.
    const style = styleForLength(await loadVoiceBlend(KOKORO_JS_VOICES, blend), ids.length - 2);
    expectTones(samples, ids, style, samplesPerToken(SAMPLE_RATE));
    expect(requests).toEqual([]);
  });

  it('different blends of the same phonemes give different audio: the tones move by the styles', async () => {
    const languages = { en: LANGUAGES.en!, adam: { lang: 'en-us', blend: { am_adam: 1 } } };
    const two = await KokoroTts.create({ model, voices: KOKORO_JS_VOICES, languages });
    try {
      const heart = concatSamples(await collect(two.synthesize('Good morning.', { language: 'en' })));
      const adam = concatSamples(await collect(two.synthesize('Good morning.', { language: 'adam' })));
      expect(adam.length).toBe(heart.length);
      expect(adam).not.toEqual(heart);
      const per = samplesPerToken(SAMPLE_RATE);
      const ids = tokenIds(await phonemize('Good morning.', 'en-us'), vocab);
      const styles = await Promise.all([LANGUAGES.en!.blend, languages.adam.blend].map(async (b) => styleForLength(await loadVoiceBlend(KOKORO_JS_VOICES, b), ids.length - 2)));
      const shift = measureHz(adam, per + TONE_EDGE, 2 * per - TONE_EDGE, SAMPLE_RATE) - measureHz(heart, per + TONE_EDGE, 2 * per - TONE_EDGE, SAMPLE_RATE);
      expect(Math.abs(shift)).toBeGreaterThan(5);
      expect(Math.abs(shift - STANDIN.styleHz * (styles[1]![0]! - styles[0]![0]!))).toBeLessThan(HZ_TOLERANCE);
    } finally {
      await two.close();
    }
  });

  it('speed 1.5 makes each token a third shorter, the tones the same', async () => {
    const fast = await KokoroTts.create({ model, voices: KOKORO_JS_VOICES, languages: LANGUAGES, speed: 1.5 });
    try {
      const samples = concatSamples(await collect(fast.synthesize('Hello, world!', { language: 'en' })));
      const ids = tokenIds(await phonemize('Hello, world!', 'en-us'), vocab);
      const style = styleForLength(await loadVoiceBlend(KOKORO_JS_VOICES, LANGUAGES.en!.blend), ids.length - 2);
      expect(samplesPerToken(SAMPLE_RATE, 1.5)).toBe(800);
      expectTones(samples, ids, style, 800);
    } finally {
      await fast.close();
    }
  });

  it('a sentence past the 510-phoneme context is spoken in pieces, no phoneme cut off', async () => {
    const words = Array.from({ length: 12 }, (_, i) => `the weather in Rome is sunny today and tomorrow it will be cloudy number ${i + 1}`).join(' and ');
    const sentence = `${words}.`;
    const phonemes = await phonemize(sentence, 'en-us');
    expect(phonemes.length).toBeGreaterThan(510);
    const samples = concatSamples(await collect(tts.synthesize(sentence, { language: 'en' })));
    const per = samplesPerToken(SAMPLE_RATE);
    expect(samples.length % per).toBe(0);
    const segments = Array.from({ length: samples.length / per }, (_, i) => rms(samples, i * per + TONE_EDGE, (i + 1) * per - TONE_EDGE) < 1);
    const pads = segments.filter(Boolean).length;
    const pieces = pads / 2;
    expect(pieces).toBeGreaterThanOrEqual(2);
    // Every phoneme symbol is there but the spaces the pieces were cut at.
    const symbols = tokenIds(phonemes, vocab).length - 2;
    expect(segments.length - pads).toBe(symbols - (pieces - 1));
    // Each piece fits Kokoro's context: at most 510 tokens between its pads.
    let run = 0;
    for (const silent of segments) {
      run = silent ? 0 : run + 1;
      expect(run).toBeLessThanOrEqual(510);
    }
  });
});
