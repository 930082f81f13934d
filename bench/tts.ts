import { EspeakTts } from '../src/voice/tts/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './benchmark.js';
import { distribution, elapsedMs, now, round } from './stats.js';

const RUNS = 30;
const WARMUP = 3;
const SENTENCES: Record<string, { text: string; language: string }> = {
  short_en: { text: 'It is sunny in Rome.', language: 'en' },
  long_en: { text: 'Tomorrow morning it will be cloudy in Rome, with a light wind from the north and about eighteen degrees by noon.', language: 'en' },
  short_it: { text: 'A Roma oggi c’è il sole.', language: 'it' },
};

/**
 * espeak-ng (Debian's, one process per sentence as the voice runs it): the
 * time from asking for a sentence to its first 16 kHz chunk, and to its
 * last, with the audio's length for scale.
 */
export const tts: Benchmark = {
  name: 'tts',
  description: `espeak-ng time to first audio and to the whole sentence, ${RUNS} runs per sentence`,
  run: runTts,
};

async function runTts(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const engine = new EspeakTts();
  const figures: Figures = { runs: RUNS, engine: engine.name };
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
    Object.assign(figures, distribution(`${name}_first_audio`, first), distribution(`${name}_whole`, whole), { [`${name}_audio_ms`]: round(audioMs, 0) });
  }
  await engine.close();
  return figures;
}
