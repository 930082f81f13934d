/**
 * The Kokoro stand-in (scripts/make-kokoro-standin.py): a model folder in
 * the layout kokoro-js loads, with Kokoro v1.0's phoneme tokenizer and an
 * ONNX graph that makes one tone per token. These are the script's figures,
 * and what a test needs to predict its audio from the phonemes.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.js';

/** Debian's python3, the one that sees python3-onnx (a pyenv python3 on PATH does not). */
const PYTHON = '/usr/bin/python3';
export const STANDIN_SCRIPT = join(REPO_ROOT, 'scripts', 'make-kokoro-standin.py');
/** kokoro-js's own voice files, the ones the blends are made of. */
export const KOKORO_JS_VOICES = join(REPO_ROOT, 'node_modules', 'kokoro-js', 'voices');

export const STANDIN = {
  sampleRate: 24_000,
  samplesPerToken: 1800,
  baseHz: 1000,
  idHz: 10,
  styleHz: 1000,
  amplitude: 0.5,
} as const;

/** Writes the stand-in folder at `folder`; fails naming python3-onnx if it is not installed. */
export function makeKokoroStandin(folder: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [STANDIN_SCRIPT, folder], (error, _stdout, stderr) => {
      if (error) reject(new Error(`${STANDIN_SCRIPT} failed (Debian's python3-onnx installed? scripts/setup.sh installs it): ${stderr || error.message}`));
      else resolve(folder);
    });
  });
}

/** The symbol -> id map of the folder's tokenizer.json. */
export async function standinVocab(folder: string): Promise<Map<string, number>> {
  const json = JSON.parse(await readFile(join(folder, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } };
  return new Map(Object.entries(json.model.vocab));
}

/** Kokoro's ids for a phoneme string: symbols outside the vocabulary dropped, a pad (0) at each end. */
export function tokenIds(phonemes: string, vocab: ReadonlyMap<string, number>): number[] {
  const ids = [...phonemes].map((symbol) => vocab.get(symbol)).filter((id): id is number => id !== undefined);
  return [0, ...ids, 0];
}

/** Samples per token at `rate` (16 kHz: the pipeline's) for `speed`. */
export function samplesPerToken(rate: number, speed = 1): number {
  return (Math.floor(STANDIN.samplesPerToken / speed) * rate) / STANDIN.sampleRate;
}

/** The tone of token `id` with style vector `style` (its first value shifts every tone). */
export function toneHz(id: number, style: Float32Array): number {
  return STANDIN.baseHz + STANDIN.idHz * id + STANDIN.styleHz * style[0]!;
}

/**
 * The frequency of a pure tone in samples[start, end) at `rate`, from the
 * first and last zero crossings (interpolated): within a fraction of a hertz
 * for the stand-in's tones over 50 ms. NaN with fewer than two crossings.
 */
export function measureHz(samples: ArrayLike<number>, start: number, end: number, rate: number): number {
  let first: number | undefined;
  let last = 0;
  let crossings = 0;
  for (let i = start + 1; i < end; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if ((a < 0 && b >= 0) || (a >= 0 && b < 0)) {
      const at = i - 1 + a / (a - b);
      first ??= at;
      last = at;
      crossings++;
    }
  }
  if (first === undefined || crossings < 2) return Number.NaN;
  return ((crossings - 1) / 2 / (last - first)) * rate;
}

/** Root mean square of samples[start, end). */
export function rms(samples: ArrayLike<number>, start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += samples[i]! ** 2;
  return Math.sqrt(sum / Math.max(1, end - start));
}

/** A tone is measured inside its segment, clear of the resampling filter's reach into its neighbours. */
export const TONE_EDGE = 100;
/**
 * The tones are measured to about 0.02 Hz; neighbouring ids are 10 Hz apart,
 * neighbouring style rows (one phoneme more or less) 0.3 to 1 Hz.
 */
export const HZ_TOLERANCE = 0.1;

export type ToneHeard = { id: number; rms: number } | { id: number; offHz: number };

/**
 * What each token's segment of `samples` (at `rate`, `per` samples a token)
 * holds: a pad's loudness, or how far a tone is from the one of its id with
 * `style` (0 within HZ_TOLERANCE). `expectedTones(ids)` is what it should be.
 */
export function tonesHeard(samples: ArrayLike<number>, ids: readonly number[], style: Float32Array, per: number, rate: number): ToneHeard[] {
  return ids.map((id, i) => {
    const [start, end] = [i * per + TONE_EDGE, (i + 1) * per - TONE_EDGE];
    if (id === 0) return { id, rms: Math.round(rms(samples, start, end)) };
    const off = measureHz(samples, start, end, rate) - toneHz(id, style);
    return { id, offHz: Math.abs(off) < HZ_TOLERANCE ? 0 : Math.round(off * 100) / 100 };
  });
}

/** Silent pads, every tone on its frequency. */
export function expectedTones(ids: readonly number[]): ToneHeard[] {
  return ids.map((id) => (id === 0 ? { id, rms: 0 } : { id, offHz: 0 }));
}
