import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  KokoroTts,
  STYLE_DIM,
  TTS_CANCELLED,
  TTS_LANGUAGE_UNKNOWN,
  TTS_MODEL_LOAD_FAILED,
  TTS_MODEL_MISSING,
  TTS_VOICE_UNKNOWN,
  loadVoiceBlend,
  phonemize,
  styleForLength,
  type KokoroModel,
  type KokoroOptions,
} from '../../../src/voice/tts/index.js';
import { SAMPLE_RATE } from '../../../src/voice/types.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { failure } from '../../helpers/outcomes.js';

const VOICES = join(process.cwd(), 'node_modules', 'kokoro-js', 'voices');
const LANGUAGES: KokoroOptions['languages'] = {
  it: { lang: 'it', blend: { if_sara: 0.8, af_bella: 0.2 } },
  en: { lang: 'en-us', blend: { af_heart: 1 } },
};

/** Stands in for the network: records every request and answers none. */
let requests: string[] = [];
const realFetch = globalThis.fetch;
beforeEach(() => {
  requests = [];
  globalThis.fetch = async (input: string | URL | Request) => {
    requests.push(String(input instanceof Request ? input.url : input));
    throw new Error('no network in tests');
  };
});
afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('KokoroTts.create without a model', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('tts-kokoro-');
  });
  afterAll(() => dir.remove());

  it('a missing model folder is TTS_MODEL_MISSING naming the files it needs; nothing is fetched', async () => {
    const model = join(dir.path, 'Kokoro-82M-v1.0-ONNX');
    const { code, message } = await failure(() => KokoroTts.create({ model, voices: VOICES, languages: LANGUAGES }));
    expect(code).toBe(TTS_MODEL_MISSING);
    expect(message).toContain(join(model, 'onnx', 'model.onnx'));
    expect(message).toContain(join(model, 'config.json'));
    expect(message).toContain(join(model, 'tokenizer.json'));
    expect(requests).toEqual([]);
  });

  it("the predecessor's kokoro-v1.0.onnx path is TTS_MODEL_MISSING saying which layout is loaded", async () => {
    const model = join(dir.path, 'kokoro', 'kokoro-v1.0.onnx');
    const { code, message } = await failure(() => KokoroTts.create({ model, voices: VOICES, languages: LANGUAGES }));
    expect(code).toBe(TTS_MODEL_MISSING);
    expect(message).toContain(model);
    expect(message).toContain('onnx/model.onnx');
    expect(requests).toEqual([]);
  });

  describe('with model files that are not a model', () => {
    let model: string;
    beforeAll(async () => {
      model = join(dir.path, 'junk');
      await dir.write('junk/config.json', JSON.stringify({ model_type: 'style_text_to_speech_2' }));
      await dir.write('junk/tokenizer.json', '{}');
      await dir.write('junk/tokenizer_config.json', '{}');
      await dir.write('junk/onnx/model_quantized.onnx', 'not an onnx graph');
    });

    it('a voices folder that is not there is TTS_MODEL_MISSING naming it', async () => {
      const voices = join(dir.path, 'voices-v1.0.bin');
      const { code, message } = await failure(() => KokoroTts.create({ model, voices, languages: LANGUAGES }));
      expect(code).toBe(TTS_MODEL_MISSING);
      expect(message).toContain(voices);
    });

    it('an unknown voice in a blend names the language table, the voice and the voices there are', async () => {
      const languages = { ...LANGUAGES, it: { lang: 'it', blend: { if_sarah: 1 } } };
      const { code, message } = await failure(() => KokoroTts.create({ model, voices: VOICES, languages }));
      expect(code).toBe(TTS_VOICE_UNKNOWN);
      expect(message).toContain('[voice.it]');
      expect(message).toContain('"if_sarah"');
      expect(message).toContain('if_sara');
    });

    it('loading fails locally with TTS_MODEL_LOAD_FAILED, remote loading off, and nothing is fetched', async () => {
      const { code, message } = await failure(() => KokoroTts.create({ model, voices: VOICES, languages: LANGUAGES }));
      expect(code).toBe(TTS_MODEL_LOAD_FAILED);
      expect(message).toContain(join(model, 'onnx', 'model_quantized.onnx'));
      expect(requests).toEqual([]);
      const { env } = await import('@huggingface/transformers');
      expect(env.allowRemoteModels).toBe(false);
    }, 60_000);
  });
});

/** A model that records what it was given and answers with a tone, 100 samples at 24 kHz per phoneme. */
class FakeModel implements KokoroModel {
  readonly sampleRate = 24_000;
  readonly calls: Array<{ phonemes: string; style: Float32Array; speed: number }> = [];
  disposed = false;

  async generate(phonemes: string, styleFor: (phonemes: number) => Float32Array, speed: number): Promise<Float32Array> {
    this.calls.push({ phonemes, style: styleFor(phonemes.length), speed });
    return Float32Array.from({ length: phonemes.length * 100 }, (_, i) => 0.3 * Math.sin(i / 5));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }
}

describe('KokoroTts with a stand-in model', () => {
  let voices: Map<string, { lang: string; style: Float32Array }>;
  beforeAll(async () => {
    voices = new Map();
    for (const [key, v] of Object.entries(LANGUAGES)) voices.set(key, { lang: v.lang, style: await loadVoiceBlend(VOICES, v.blend) });
  });

  async function collect(chunks: AsyncIterable<Int16Array>): Promise<Int16Array[]> {
    const out: Int16Array[] = [];
    for await (const chunk of chunks) out.push(chunk);
    return out;
  }

  it("speaks each sentence with its language's phonemes and blended style row, as 16 kHz chunks", async () => {
    const model = new FakeModel();
    const tts = new KokoroTts(model, voices, { speed: 1.1 });
    const chunks = await collect(tts.synthesize('Ciao, come stai? Roma è bella.', { language: 'it' }));
    expect(model.calls.map((c) => c.phonemes)).toHaveLength(2);
    const [first, second] = model.calls;
    expect(first!.phonemes).toMatch(/^tʃˈao, .*\?$/);
    // Kokoro's vocabulary has ɹ where espeak-ng writes r.
    expect(second!.phonemes).toContain('ɹ');
    expect(second!.phonemes).not.toContain('r');
    expect(first!.speed).toBe(1.1);
    expect(first!.style).toEqual(styleForLength(voices.get('it')!.style, first!.phonemes.length));
    expect(first!.style.length).toBe(STYLE_DIM);
    const samples = chunks.reduce((n, c) => n + c.length, 0);
    const generated = model.calls.reduce((n, c) => n + c.phonemes.length * 100, 0);
    expect(Math.abs(samples - (generated * SAMPLE_RATE) / 24_000)).toBeLessThanOrEqual(2);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(1600);
    await tts.close();
    expect(model.disposed).toBe(true);
  });

  it('uses the English table for English', async () => {
    const model = new FakeModel();
    await collect(new KokoroTts(model, voices).synthesize('Hello, world!', { language: 'en' }));
    expect(model.calls[0]!.phonemes).toBe('həlˈoʊ, wˈɜːld!');
    expect(model.calls[0]!.style).toEqual(styleForLength(voices.get('en')!.style, model.calls[0]!.phonemes.length));
  });

  it('a language without a [voice.<lang>] table is TTS_LANGUAGE_UNKNOWN listing the configured ones', async () => {
    const { code, message } = await failure(() => collect(new KokoroTts(new FakeModel(), voices).synthesize('Hallo.', { language: 'de' })));
    expect(code).toBe(TTS_LANGUAGE_UNKNOWN);
    expect(message).toContain('"de"');
    expect(message).toContain('it, en');
  });

  it('abort between sentences stops with TTS_CANCELLED', async () => {
    const model = new FakeModel();
    const controller = new AbortController();
    const { code } = await failure(async () => {
      for await (const _chunk of new KokoroTts(model, voices).synthesize('One. Two. Three.', { language: 'en', signal: controller.signal })) {
        controller.abort();
      }
    });
    expect(code).toBe(TTS_CANCELLED);
    expect(model.calls).toHaveLength(1);
  });
});

describe('phonemize (espeak-ng IPA for Kokoro)', () => {
  it('keeps punctuation between phonemized stretches', async () => {
    const phonemes = await phonemize('Hello, world! How are you?', 'en-us');
    expect(phonemes).toMatch(/^həlˈoʊ, wˈɜːld! h.aʊ ɑːɹ juː\?$/);
  });

  it('phonemizes Italian with Italian rules', async () => {
    expect(await phonemize('Ciao a tutti.', 'it')).toBe('tʃˈao a tˈutːɪ.');
  });

  it('an unknown language is TTS_VOICE_UNKNOWN', async () => {
    expect((await failure(() => phonemize('ciao', 'qq'))).code).toBe(TTS_VOICE_UNKNOWN);
  });
});
