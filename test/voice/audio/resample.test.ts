import { describe, expect, it } from 'vitest';
import { Resampler, fromVoiceFormat, mixToMono, resample, toVoiceFormat } from '../../../src/voice/audio/index.js';
import { rms, sine, toInt16, toneAmplitude, zeroCrossingFrequency } from './signals.js';

/** Measure away from the ends, where the filter sees the zeros before and after the signal. */
const EDGE = 400;

describe('resampling to 16 kHz', () => {
  for (const fromRate of [44100, 48000, 22050, 8000]) {
    it(`keeps a 1 kHz sine's frequency and amplitude from ${fromRate} Hz`, () => {
      const input = sine(1000, fromRate, 1, 0.5);
      const out = resample(input, fromRate, 16000);
      expect(out.length).toBe(16000);
      expect(zeroCrossingFrequency(out, 16000, EDGE, out.length - EDGE)).toBeCloseTo(1000, 0);
      // Whole periods: 16 samples per period at 16 kHz.
      expect(toneAmplitude(out, 1000, 16000, EDGE, 16000 - EDGE)).toBeCloseTo(0.5, 2);
      expect(rms(out, EDGE, out.length - EDGE)).toBeCloseTo(0.5 / Math.SQRT2, 2);
    });
  }

  it('removes what would alias: a 12 kHz tone at 48 kHz is gone at 16 kHz (over 60 dB down)', () => {
    const out = resample(sine(12000, 48000, 1, 0.5), 48000, 16000);
    expect(rms(out, EDGE, out.length - EDGE)).toBeLessThan(0.5 * 1e-3);
    // An 8.2 kHz tone at 44.1 kHz would fold to 7.8 kHz: also removed.
    const folded = resample(sine(8200, 44100, 1, 0.5), 44100, 16000);
    expect(rms(folded, EDGE, folded.length - EDGE)).toBeLessThan(0.5 * 1e-3);
  });

  it('keeps a constant constant and a speech-band tone (3.4 kHz) within 0.1 dB', () => {
    const dc = resample(new Float32Array(44100).fill(0.25), 44100, 16000);
    for (let i = EDGE; i < dc.length - EDGE; i++) expect(dc[i]).toBeCloseTo(0.25, 4);
    const out = resample(sine(3400, 44100, 1, 0.5), 44100, 16000);
    expect(20 * Math.log10(toneAmplitude(out, 3400, 16000, EDGE, 16000 - EDGE) / 0.5)).toBeGreaterThan(-0.1);
  });

  it('streams: any chunking gives the same samples as one batch', () => {
    const input = sine(440, 44100, 0.5);
    const batch = resample(input, 44100, 16000);
    const resampler = new Resampler(44100, 16000);
    const parts: number[] = [];
    for (let i = 0; i < input.length; i += 441 + (i % 7)) parts.push(...resampler.push(input.subarray(i, i + 441 + (i % 7))));
    parts.push(...resampler.flush());
    expect(Float32Array.from(parts)).toEqual(batch);
    expect(batch.length).toBe(Math.ceil((input.length * 16000) / 44100));
  });

  it('handles rates with many phases (44101 Hz) and tiny inputs', () => {
    const out = resample(sine(1000, 44101, 1), 44101, 16000);
    expect(out.length).toBe(Math.ceil((44101 * 16000) / 44101));
    expect(zeroCrossingFrequency(out, 16000, EDGE, out.length - EDGE)).toBeCloseTo(1000, 0);
    expect(resample(Float32Array.from([0.5]), 48000, 16000).length).toBe(1);
    expect(resample(new Float32Array(0), 48000, 16000).length).toBe(0);
    expect(() => new Resampler(0, 16000)).toThrow(expect.objectContaining({ code: 'AUDIO_FORMAT_INVALID' }));
  });
});

describe('mixdown and the voice format', () => {
  it('averages channels', () => {
    const stereo = Int16Array.from([1000, 3000, -2000, 2000, 16384, 0]);
    expect(Array.from(mixToMono(stereo, 2), (v) => v * 32768)).toEqual([2000, 0, 8192]);
    expect(() => mixToMono(stereo, 4)).toThrow(expect.objectContaining({ code: 'AUDIO_FORMAT_INVALID' }));
  });

  it('converts stereo 48 kHz to 16 kHz mono: in-phase channels keep the tone, opposite ones cancel', () => {
    const tone = toInt16(sine(1000, 48000, 1, 0.5));
    const same = new Int16Array(tone.length * 2);
    const opposite = new Int16Array(tone.length * 2);
    tone.forEach((v, i) => {
      same[2 * i] = v;
      same[2 * i + 1] = v;
      opposite[2 * i] = v;
      opposite[2 * i + 1] = -v;
    });
    const kept = toVoiceFormat(same, 48000, 2);
    expect(kept.length).toBe(16000);
    expect(toneAmplitude(kept, 1000, 16000, EDGE, 16000 - EDGE) / 32768).toBeCloseTo(0.5, 2);
    expect(Math.max(...toVoiceFormat(opposite, 48000, 2).map(Math.abs))).toBe(0);
  });

  it('converts 16 kHz out to a device rate and back', () => {
    const voice = toInt16(sine(1000, 16000, 1, 0.5));
    const device = fromVoiceFormat(voice, 48000);
    expect(device.length).toBe(48000);
    expect(toneAmplitude(device, 1000, 48000, 3 * EDGE, 48000 - 3 * EDGE) / 32767).toBeCloseTo(0.5, 2);
    const back = toVoiceFormat(device, 48000, 1);
    for (let i = EDGE; i < 16000 - EDGE; i++) expect(Math.abs(back[i]! - voice[i]!)).toBeLessThan(40);
    expect(toVoiceFormat(voice, 16000, 1)).toEqual(voice);
  });
});
