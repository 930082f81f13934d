/** Test signals for the device tests: speech made at test time, and where one signal lies in another. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readWav } from '../../../src/voice/audio/index.js';
import type { AudioFrame } from '../../../src/voice/types.js';

const run = promisify(execFile);

/** Says why speech cannot be made here, or undefined when espeak-ng and sox both run. */
export async function speechToolsMissing(): Promise<string | undefined> {
  for (const [program, flag] of [['espeak-ng', '--version'], ['sox', '--version']] as const) {
    try {
      await run(program, [flag], { timeout: 5000 });
    } catch (error) {
      return `${program} does not run: ${(error as Error).message}`;
    }
  }
  return undefined;
}

/** `text` spoken by espeak-ng, as 16 kHz mono int16 (sox converts from espeak's 22.05 kHz). */
export async function speech(dir: string, text: string): Promise<Int16Array> {
  const raw = join(dir, 'espeak.wav');
  const wav = join(dir, 'speech16k.wav');
  await run('espeak-ng', ['-s', '190', '-w', raw, text], { timeout: 10_000 });
  await run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', wav], { timeout: 10_000 });
  return (await readWav(wav)).samples;
}

export function joinFrames(frames: AudioFrame[]): Int16Array {
  const out = new Int16Array(frames.reduce((n, frame) => n + frame.samples.length, 0));
  let offset = 0;
  for (const frame of frames) {
    out.set(frame.samples, offset);
    offset += frame.samples.length;
  }
  return out;
}

/**
 * The offset of `needle` in `haystack` with the highest normalized
 * cross-correlation (1 = the same waveform, at any level).
 */
export function bestLag(haystack: Int16Array, needle: Int16Array): { lag: number; score: number } {
  const n = needle.length;
  let needleEnergy = 0;
  for (let i = 0; i < n; i++) needleEnergy += needle[i]! * needle[i]!;
  let windowEnergy = 0;
  for (let i = 0; i < n && i < haystack.length; i++) windowEnergy += haystack[i]! * haystack[i]!;
  let best = { lag: -1, score: -1 };
  for (let lag = 0; lag + n <= haystack.length; lag++) {
    if (lag > 0) windowEnergy += haystack[lag + n - 1]! ** 2 - haystack[lag - 1]! ** 2;
    if (windowEnergy <= 0) continue;
    let dot = 0;
    for (let i = 0; i < n; i++) dot += haystack[lag + i]! * needle[i]!;
    const score = dot / Math.sqrt(needleEnergy * windowEnergy);
    if (score > best.score) best = { lag, score };
  }
  return best;
}

/** The first sample at or after `from` whose magnitude reaches `level`; -1 if none. */
export function firstAbove(samples: Int16Array, level: number, from = 0): number {
  for (let i = from; i < samples.length; i++) if (Math.abs(samples[i]!) >= level) return i;
  return -1;
}

/** The last sample whose magnitude reaches `level`; -1 if none. */
export function lastAbove(samples: Int16Array, level: number): number {
  for (let i = samples.length - 1; i >= 0; i--) if (Math.abs(samples[i]!) >= level) return i;
  return -1;
}
