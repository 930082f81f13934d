import { describe, expect, it } from 'vitest';
import { BAND_COUNT, BandLevels } from '../../../src/voice/audio/band-levels.js';
import { BandDoubleTalkMeter } from '../../../src/voice/duplex/band-double-talk-meter.js';
import { DoubleTalkMeter } from '../../../src/voice/duplex/double-talk-meter.js';
import { seededRandom } from '../../support/seeded-random.js';
import { simulateMic } from '../../support/synthetic-echo.js';

const RATE = 16_000;

/** Speech-like audio: white noise under a syllable envelope (on 150 ms, off 60 ms), each syllable at its own level; deterministic. */
function syllables(ms: number, seed: number): Int16Array {
  const random = seededRandom(seed);
  const out = new Int16Array((ms * RATE) / 1000);
  for (let start = 0; start < out.length; start += 210 * 16) {
    const peak = 2000 + random() * 6000;
    for (let i = start; i < Math.min(out.length, start + 150 * 16); i++) out[i] = Math.round((random() - 0.5) * 2 * peak);
  }
  return out;
}

/** Low-pass: three 16-sample moving averages (1 ms each: little is left above 1.5 kHz), times `gain`. */
function lowPass(samples: Int16Array, gain: number): Int16Array {
  let x = Float64Array.from(samples);
  for (let pass = 0; pass < 3; pass++) {
    const y = new Float64Array(x.length);
    let sum = 0;
    for (let i = 0; i < x.length; i++) {
      sum += x[i]! - (x[i - 16] ?? 0);
      y[i] = sum / 16;
    }
    x = y;
  }
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
}

/** High-pass: a second difference (most of its power over 3 kHz), times `gain`. */
function highPass(samples: Int16Array, gain: number): Int16Array {
  return Int16Array.from(samples, (x, i) => Math.round(gain * (x - 2 * (samples[i - 1] ?? 0) + (samples[i - 2] ?? 0)) / 4));
}

function excesses(meter: { push(mic: Int16Array, render: Int16Array | null, cancelled?: Int16Array): number }, mic: Int16Array, far: Int16Array, cancelled?: Int16Array): number[] {
  const out: number[] = [];
  for (let s = 0; s + 160 <= far.length; s += 160) out.push(meter.push(mic.subarray(s, s + 160), far.subarray(s, s + 160), cancelled?.subarray(s, s + 160)));
  return out;
}

/** a + b, sample by sample, clipped. */
function mix(a: Int16Array, b: Int16Array): Int16Array {
  return Int16Array.from(a, (x, i) => Math.max(-32768, Math.min(32767, x + (b[i] ?? 0))));
}

describe('BandLevels', () => {
  it('puts a tone’s power in the band that holds its frequency', () => {
    const bands = new BandLevels();
    const tone = Int16Array.from({ length: 256 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / RATE)));
    const levels = [...bands.push(tone)];
    expect(levels).toHaveLength(BAND_COUNT);
    const loudest = levels.indexOf(Math.max(...levels));
    // 1000 Hz lies in 920-1080 Hz, the eighth band.
    expect(loudest).toBe(7);
    expect(levels[loudest]! - levels[12]!).toBeGreaterThan(40);
  });
});

describe('BandDoubleTalkMeter', () => {
  // The assistant's voice in the low bands; its echo 60 ms later at half its level, with a little noise.
  const far = lowPass(syllables(4000, 3), 4);
  const echoOnly = simulateMic(far, { delayMs: 60, gain: 0.5, noise: 20, seed: 5 });

  it('keeps echo-only frames below 6 dB once it has learnt the echo path', () => {
    const finite = excesses(new BandDoubleTalkMeter(), echoOnly, far).slice(100).filter(Number.isFinite);
    expect(finite.length).toBeGreaterThan(100);
    expect(Math.max(...finite)).toBeLessThan(6);
  });

  it('sees a quieter voice in bands the echo leaves empty, where the whole-band meter cannot', () => {
    // The user 7 dB under the echo in level, in the high bands, from 2 s on.
    const user = new Int16Array(far.length);
    user.set(highPass(syllables(2000, 11), 0.3), 2 * RATE);
    const mic = simulateMic(far, { delayMs: 60, gain: 0.5, noise: 20, seed: 5 }, RATE, user);
    const band = excesses(new BandDoubleTalkMeter(), mic, far).slice(100).filter(Number.isFinite);
    const whole = excesses(new DoubleTalkMeter(), mic, far).slice(100).filter(Number.isFinite);
    expect(whole.filter((x) => x >= 6).length).toBe(0);
    expect(band.filter((x) => x >= 12).length).toBeGreaterThan(10);
  });

  it('with bandsFrom "cancelled", compares the canceller’s output with the echo it leaves', () => {
    // The user 10 dB under the echo, in the same low bands, from 2 s on; a canceller that leaves a twentieth of the echo.
    const user = new Int16Array(far.length);
    user.set(lowPass(syllables(2000, 11), 4 * 0.5 * 0.3), 2 * RATE);
    const mic = simulateMic(far, { delayMs: 60, gain: 0.5, noise: 20, seed: 5 }, RATE, user);
    const residue = simulateMic(far, { delayMs: 60, gain: 0.5 / 20, noise: 20, seed: 5 });
    const onMic = excesses(new BandDoubleTalkMeter(), mic, far, mix(residue, user)).slice(100).filter(Number.isFinite);
    const onCancelled = excesses(new BandDoubleTalkMeter({ bandsFrom: 'cancelled' }), mic, far, mix(residue, user)).slice(100);
    const residueOnly = excesses(new BandDoubleTalkMeter({ bandsFrom: 'cancelled' }), echoOnly, far, residue).slice(100).filter(Number.isFinite);
    expect(onMic.filter((x) => x >= 12).length).toBe(0);
    // Before the user speaks, the residue is the echo it predicts; after, the voice stands far above it.
    expect(onCancelled.slice(0, 100).filter((x) => x >= 12).length).toBe(0);
    expect(onCancelled.slice(100).filter((x) => x >= 12).length).toBeGreaterThan(20);
    expect(residueOnly.length).toBeGreaterThan(100);
    // A residue near the noise floor is ragged (up to 7.5 dB here), but never reaches the rule's 12 dB.
    expect(Math.max(...residueOnly)).toBeLessThan(12);
  });
});
