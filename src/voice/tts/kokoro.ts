/**
 * Text to speech with Kokoro, as the predecessor spoke: one voice per
 * `[voice.<lang>]`, a blend of named voices, phonemes made in that table's
 * `lang` ("it", "en-us"). Kokoro makes a whole sentence at once, so the
 * first chunk of a sentence is out once that sentence is generated; a long
 * text is cut into sentences (kokoro-js's splitter) and each is yielded as
 * soon as it is done.
 */
import { AppError, isAppError } from '../../errors/index.js';
import { Resampler, floatToInt16 } from '../audio/index.js';
import { SAMPLE_RATE, type Tts } from '../types.js';
import { ChunkBuffer } from './chunks.js';
import { TTS_BAD_OPTIONS, TTS_LANGUAGE_UNKNOWN, ttsCancelled } from './errors.js';
import { checkKokoroFiles } from './kokoro-files.js';
import { loadKokoroModel, type KokoroModel } from './kokoro-model.js';
import { phonemize } from './kokoro-phonemes.js';
import { importKokoroJs } from './kokoro-runtime.js';
import { loadVoiceBlend, styleForLength } from './voice-blend.js';

/** Kokoro's context: 512 tokens, two of them pads. */
const MAX_PHONEMES = 510;

export interface KokoroVoice {
  /** espeak-ng language for the phonemes ("it", "en-us"): `[voice.<lang>] lang`. */
  lang: string;
  /** Blended style vectors (rows of 256). */
  style: Float32Array;
}

export interface KokoroOptions {
  /** `[kokoro] model`: the model folder, or an onnx/model*.onnx file in it. */
  model: string;
  /** `[kokoro] voices`: a folder of `<name>.bin` voice files. */
  voices: string;
  /** `[voice.<lang>]` tables (voiceLanguages(config)). */
  languages: Readonly<Record<string, { lang: string; blend: Readonly<Record<string, number>> }>>;
  /** 0.5 to 2; 1 is the model's pace. */
  speed?: number;
  /** espeak-ng, for phonemes. */
  espeakProgram?: string;
}

export class KokoroTts implements Tts {
  readonly name = 'kokoro';

  /** Checks every file, blends every language's voice, then loads the model; fails with TTS_MODEL_MISSING before touching it. */
  static async create(options: KokoroOptions): Promise<KokoroTts> {
    const files = checkKokoroFiles(options.model, options.voices);
    const voices = new Map<string, KokoroVoice>();
    for (const [key, voice] of Object.entries(options.languages)) {
      try {
        voices.set(key, { lang: voice.lang, style: await loadVoiceBlend(files.voices, voice.blend) });
      } catch (error) {
        if (isAppError(error)) throw new AppError(error.code, `[voice.${key}] blend: ${error.message}`, { cause: error.cause });
        throw error;
      }
    }
    return new KokoroTts(await loadKokoroModel(files), voices, options);
  }

  private readonly speed: number;
  private readonly espeakProgram: string | undefined;

  constructor(
    private readonly model: KokoroModel,
    private readonly voices: ReadonlyMap<string, KokoroVoice>,
    options: { speed?: number; espeakProgram?: string } = {},
  ) {
    const speed = options.speed ?? 1;
    if (!Number.isFinite(speed) || speed < 0.5 || speed > 2) throw new AppError(TTS_BAD_OPTIONS, `the Kokoro speed must be from 0.5 to 2, not ${speed}`);
    this.speed = speed;
    this.espeakProgram = options.espeakProgram;
  }

  async *synthesize(text: string, options: { language: string; signal?: AbortSignal }): AsyncIterable<Int16Array> {
    const { language, signal } = options;
    const voice = this.voices.get(language);
    if (!voice) {
      throw new AppError(TTS_LANGUAGE_UNKNOWN, `no Kokoro voice for language ${JSON.stringify(language)}; configured: ${[...this.voices.keys()].join(', ') || '(none)'}`);
    }
    const cancelled = (): AppError => ttsCancelled('Kokoro synthesis', signal?.reason);
    if (signal?.aborted) throw cancelled();
    const styleFor = (phonemes: number): Float32Array => styleForLength(voice.style, phonemes);
    for (const sentence of await sentences(text)) {
      const phonemes = await phonemize(sentence, voice.lang, { program: this.espeakProgram, signal });
      for (const batch of batches(phonemes)) {
        const audio = await this.model.generate(batch, styleFor, this.speed);
        if (signal?.aborted) throw cancelled();
        yield* toVoiceChunks(audio, this.model.sampleRate);
      }
    }
  }

  async close(): Promise<void> {
    await this.model.dispose();
  }
}

async function sentences(text: string): Promise<string[]> {
  if (text.trim() === '') return [];
  const { TextSplitterStream } = await importKokoroJs();
  const splitter = new TextSplitterStream();
  splitter.push(text);
  return [...splitter];
}

/** Phonemes cut at spaces into pieces the model takes; a sentence this long is rare. */
function batches(phonemes: string): string[] {
  if (phonemes.length <= MAX_PHONEMES) return phonemes === '' ? [] : [phonemes];
  const out: string[] = [];
  let current = '';
  for (const word of phonemes.split(' ')) {
    if (current !== '' && current.length + 1 + word.length > MAX_PHONEMES) {
      out.push(current);
      current = '';
    }
    current = current === '' ? word.slice(0, MAX_PHONEMES) : `${current} ${word}`;
  }
  if (current !== '') out.push(current);
  return out;
}

function toVoiceChunks(audio: Float32Array, sampleRate: number): Int16Array[] {
  const chunks = new ChunkBuffer();
  if (sampleRate === SAMPLE_RATE) return [...chunks.push(floatToInt16(audio)), ...chunks.flush()];
  const resampler = new Resampler(sampleRate, SAMPLE_RATE);
  return [...chunks.push(floatToInt16(resampler.push(audio))), ...chunks.push(floatToInt16(resampler.flush())), ...chunks.flush()];
}
