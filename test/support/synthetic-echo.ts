/**
 * A synthetic echo path and the echo figure, for checking an `Apm` without a
 * room: the microphone hears the speaker delayed and attenuated, plus a
 * little noise (and, for double talk, the user). Used by the tests and
 * bench/apm.ts; deterministic for a given seed.
 */
import type { Apm } from '../../src/voice/apm/index.js';
import { seededRandom } from './seeded-random.js';

export interface EchoPath {
  /** Speaker to microphone, ms. */
  delayMs: number;
  /** Linear gain of the echo (0.5 = -6 dB). */
  gain: number;
  /** Peak amplitude of uniform white noise, in int16 steps. */
  noise?: number;
  seed?: number;
}

/** The microphone signal: `far` through the echo path, plus `near` (the user) when given. */
export function simulateMic(far: Int16Array, path: EchoPath, sampleRate = 16_000, near?: Int16Array): Int16Array {
  const delay = Math.round((path.delayMs * sampleRate) / 1000);
  const random = seededRandom(path.seed ?? 1);
  const noise = path.noise ?? 0;
  const mic = new Int16Array(far.length);
  for (let i = 0; i < far.length; i++) {
    const echo = i >= delay ? far[i - delay]! * path.gain : 0;
    const v = Math.round(echo + (near?.[i] ?? 0) + (random() - 0.5) * 2 * noise);
    mic[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return mic;
}

/**
 * Runs whole 10 ms frames through `apm` as a full-duplex loop does: each
 * render frame just before the capture frame recorded while it played.
 * Returns the processed capture (a trailing partial frame is dropped) and
 * the time each capture+render pair took, ms.
 */
export function runEchoLoop(apm: Apm, far: Int16Array, mic: Int16Array): { out: Int16Array; frameMs: number[] } {
  const n = apm.frameSamples;
  const frames = Math.floor(Math.min(far.length, mic.length) / n);
  const out = new Int16Array(frames * n);
  const frameMs: number[] = [];
  for (let f = 0; f < frames; f++) {
    const start = performance.now();
    apm.processRender(far.subarray(f * n, (f + 1) * n));
    out.set(apm.processCapture(mic.subarray(f * n, (f + 1) * n)), f * n);
    frameMs.push(performance.now() - start);
  }
  return { out, frameMs };
}

/** 10 log10 of energy(mic) / energy(out) over [from, to) samples: the echo removed, dB. */
export function erleDb(mic: Int16Array, out: Int16Array, from = 0, to = Math.min(mic.length, out.length)): number {
  return 10 * Math.log10((energy(mic, from, to) + 1) / (energy(out, from, to) + 1));
}

export function energy(samples: Int16Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  return sum;
}

/** Pearson correlation of two signals over [from, to). */
export function correlation(a: Int16Array, b: Int16Array, from = 0, to = Math.min(a.length, b.length)): number {
  let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  const n = to - from;
  for (let i = from; i < to; i++) {
    const x = a[i]!, y = b[i]!;
    sa += x; sb += y; saa += x * x; sbb += y * y; sab += x * y;
  }
  const cov = sab - (sa * sb) / n;
  const den = Math.sqrt((saa - (sa * sa) / n) * (sbb - (sb * sb) / n));
  return den === 0 ? 0 : cov / den;
}

