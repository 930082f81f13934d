import { describe, expect, it } from 'vitest';
import { partialsFigures, utteranceFrom, voicedEnd, type Trial } from '../../support/partials-utterances.js';

/** `ms` of a 1 kHz-ish square wave at `level`, or silence at level 0. */
function tone(ms: number, level: number): Int16Array {
  const out = new Int16Array((ms * 16_000) / 1000);
  for (let i = 0; i < out.length; i++) out[i] = i % 16 < 8 ? level : -level;
  return out;
}

function join(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('voicedEnd', () => {
  it('ends after the last voiced stretch, not at a lone loud 10 ms frame in the tail', () => {
    const clip = join(tone(200, 0), tone(500, 10_000), tone(200, 0), tone(10, 10_000), tone(300, 0));
    expect(voicedEnd(clip)).toBe((700 * 16_000) / 1000);
  });
});

describe('utteranceFrom', () => {
  it('keeps the prefix before the onset, zero-padded where the clip has less, and silence up to the endpoint', () => {
    const clip = join(tone(100, 0), tone(1000, 10_000), tone(100, 500));
    const u = utteranceFrom(clip, { prefixMs: 300, endSilenceMs: 500 });
    expect(u).toMatchObject({ onsetMs: 300, speechEndMs: 1300, endpointMs: 1800 });
    expect(u.samples.length).toBe((1800 * 16_000) / 1000);
    // 200 ms of zeros, the clip's 100 ms of quiet, its voice from 300 ms.
    expect(u.samples.subarray(0, 3200).every((s) => s === 0)).toBe(true);
    expect(Math.abs(u.samples[(300 * 16_000) / 1000]!)).toBe(10_000);
    // The clip's own tail is kept, then zeros.
    expect(Math.abs(u.samples[(1350 * 16_000) / 1000]!)).toBe(500);
    expect(u.samples[(1500 * 16_000) / 1000]).toBe(0);
  });

  it('cuts a long clip at maxMs and silences what followed the cut', () => {
    const clip = join(tone(100, 0), tone(3000, 10_000));
    const u = utteranceFrom(clip, { prefixMs: 100, endSilenceMs: 500, maxMs: 1000 });
    expect(u).toMatchObject({ onsetMs: 100, speechEndMs: 1000, endpointMs: 1500 });
    expect(u.samples.subarray((1000 * 16_000) / 1000).every((s) => s === 0)).toBe(true);
  });
});

describe('partialsFigures', () => {
  const trial = (intervalMs: number, firstPartialMs: number | undefined, firstStableMs: number | undefined, finalMs: number): Trial => ({
    variant: `interval_${intervalMs}`,
    ...(firstPartialMs === undefined ? {} : { firstPartialMs }),
    ...(firstStableMs === undefined ? {} : { firstStableMs }),
    finalMs,
    speechEndMs: 1000,
    finishCalledMs: 1500,
  });

  it('gives each variant its percentiles, the misses, and the final as the visible text where nothing was stable', () => {
    const figures = partialsFigures([trial(300, 400, 700, 2500), trial(300, 600, undefined, 2000), trial(1000, undefined, undefined, 3000)], 800);
    expect(figures).toMatchObject({
      interval_300_utterances: 2,
      interval_300_first_partial_after_onset_p50_ms: 500,
      interval_300_no_partial: 0,
      interval_300_first_stable_after_onset_p50_ms: 700,
      interval_300_no_stable_partial: 1,
      interval_300_stable_or_final_after_onset_p50_ms: 1350,
      interval_300_stable_or_final_within_800ms: 1,
      interval_300_final_after_speech_end_p50_ms: 1250,
      interval_300_final_after_finish_call_p50_ms: 750,
      interval_1000_first_partial_after_onset_ms: 'none',
      interval_1000_first_stable_after_onset_ms: 'none',
      interval_1000_no_stable_partial: 1,
    });
  });
});
