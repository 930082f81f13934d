import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { defaultConfig, voiceLanguages } from '../src/config/index.js';
import { EspeakTts, KokoroTts } from '../src/voice/tts/index.js';
import type { Tts } from '../src/voice/types.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { distribution, elapsedMs, now, round } from '../test/support/stats.js';

const RUNS = 30;
const WARMUP = 3;
const SENTENCES: Record<string, { text: string; language: string }> = {
  short_en: { text: 'It is sunny in Rome.', language: 'en' },
  long_en: { text: 'Tomorrow morning it will be cloudy in Rome, with a light wind from the north and about eighteen degrees by noon.', language: 'en' },
  short_it: { text: 'A Roma oggi c’è il sole.', language: 'it' },
};
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Debian's python3, the one that sees python3-onnx. */
const PYTHON = '/usr/bin/python3';
const STANDIN_SCRIPT = join(REPO_ROOT, 'scripts', 'make-kokoro-standin.py');
const KOKORO_JS_VOICES = join(REPO_ROOT, 'node_modules', 'kokoro-js', 'voices');

/**
 * espeak-ng (Debian's, one process per sentence as the voice runs it): the
 * time from asking for a sentence to its first 16 kHz chunk, and to its
 * last, with the audio's length for scale. Then the Kokoro pipeline on the
 * stand-in model (scripts/make-kokoro-standin.py, a tone per phoneme token):
 * espeak-ng phonemes, the tokenizer, onnxruntime-node, 24 -> 16 kHz. Its
 * graph costs next to nothing, so those figures are the pipeline's own
 * overhead around the model, not Kokoro-82M's speed.
 */
export const tts: Benchmark = {
  name: 'tts',
  description: `espeak-ng time to first audio and to the whole sentence, ${RUNS} runs per sentence; then the Kokoro pipeline's own overhead on a stand-in model (not the real model's speed)`,
  run: runTts,
};

async function runTts(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const espeak = new EspeakTts();
  const figures: Figures = { runs: RUNS, engine: espeak.name };
  try {
    Object.assign(figures, await measure(espeak, '', options));
  } finally {
    await espeak.close();
  }
  const dir = await mkdtemp(join(tmpdir(), 'bench-tts-kokoro-'));
  try {
    const model = join(dir, 'Kokoro-82M-v1.0-ONNX');
    await promisify(execFile)(PYTHON, [STANDIN_SCRIPT, model]);
    // The default [voice.it] and [voice.en] blends.
    const languages = voiceLanguages(defaultConfig());
    const started = now();
    const kokoro = await KokoroTts.create({ model, voices: KOKORO_JS_VOICES, languages });
    figures.kokoro_standin_load_ms = round(elapsedMs(started), 1);
    try {
      Object.assign(figures, await measure(kokoro, 'kokoro_standin_', options));
    } finally {
      await kokoro.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return figures;
}

async function measure(engine: Tts, prefix: string, options: BenchmarkRunOptions): Promise<Figures> {
  const figures: Figures = {};
  for (const [name, sentence] of Object.entries(SENTENCES)) {
    const first: number[] = [];
    const whole: number[] = [];
    let audioMs = 0;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      options.signal?.throwIfAborted();
      const started = now();
      let firstMs: number | undefined;
      let samples = 0;
      for await (const chunk of engine.synthesize(sentence.text, { language: sentence.language })) {
        firstMs ??= elapsedMs(started);
        samples += chunk.length;
      }
      if (i < WARMUP) continue;
      first.push(firstMs ?? Number.NaN);
      whole.push(elapsedMs(started));
      audioMs = (samples / 16_000) * 1000;
    }
    Object.assign(figures, distribution(`${prefix}${name}_first_audio`, first), distribution(`${prefix}${name}_whole`, whole), { [`${prefix}${name}_audio_ms`]: round(audioMs, 0) });
  }
  return figures;
}
