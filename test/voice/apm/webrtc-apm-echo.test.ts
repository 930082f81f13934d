import { describe, expect, it } from 'vitest';
import { WebRtcApm } from '../../../src/voice/apm/index.js';
import { energy, erleDb, runEchoLoop, simulateMic } from '../../support/synthetic-echo.js';
import { Resampler, floatToInt16, int16ToFloat } from '../../../src/voice/audio/index.js';
import { envelope, librivox, pearson } from './clips.js';

const RATE = 16_000;
/** The AEC adapts over the first second or two; measure after. */
const SETTLED = 2 * RATE;
const PATH = { delayMs: 40, gain: 0.5, noise: 30, seed: 7 };

describe('WebRtcApm on a synthetic echo (LibriVox speech as the far end)', () => {
  it('removes at least 20 dB of echo with AEC alone, and reports its ERLE and delay', async () => {
    const far = await librivox('0870');
    const mic = simulateMic(far, PATH);
    const apm = new WebRtcApm({ noiseSuppression: false, gainControl: false });
    try {
      const { out } = runEchoLoop(apm, far, mic);
      expect(erleDb(mic, out, SETTLED)).toBeGreaterThanOrEqual(20);
      const stats = apm.stats();
      expect(stats.framesCaptured).toBe(Math.floor(far.length / 160));
      expect(stats.erleDb).toBeGreaterThanOrEqual(15);
      // The delay-agnostic AEC's estimate: the true 40 ms less its own buffering.
      expect(stats.delayMedianMs).toBeGreaterThanOrEqual(0);
      expect(stats.delayMedianMs).toBeLessThanOrEqual(60);
    } finally {
      apm.close();
    }
  });

  it('removes more with noise suppression on (the default configuration, AGC off)', async () => {
    const far = await librivox('0870');
    const mic = simulateMic(far, PATH);
    const apm = new WebRtcApm({ gainControl: false });
    const { out } = runEchoLoop(apm, far, mic);
    apm.close();
    expect(erleDb(mic, out, SETTLED)).toBeGreaterThanOrEqual(30);
  });

  it('keeps the near-end speaker during double talk', async () => {
    const far = await librivox('0870');
    const user = await librivox('0880');
    // The user talks over the assistant from 3 s, at the echo's level.
    const start = 3 * RATE;
    const end = Math.min(far.length, start + user.length);
    const near = new Int16Array(far.length);
    for (let i = start; i < end; i++) near[i] = user[i - start]! * 0.5;
    const apm = new WebRtcApm({ gainControl: false });
    const { out } = runEchoLoop(apm, far, simulateMic(far, PATH, RATE, near));
    apm.close();
    const echoOnly = new WebRtcApm({ gainControl: false });
    const quiet = runEchoLoop(echoOnly, far, simulateMic(far, PATH)).out;
    echoOnly.close();

    const stop = Math.min(end, out.length);
    // The user's speech is at least 10 dB above what is left of the echo alone ...
    expect(10 * Math.log10(energy(out, start, stop) / energy(quiet, start, stop))).toBeGreaterThan(10);
    // ... and the output's loudness contour follows the user, not the echo.
    const echo = simulateMic(far, { delayMs: PATH.delayMs, gain: PATH.gain });
    expect(pearson(envelope(out, start, stop), envelope(near, start, stop))).toBeGreaterThan(0.4);
    expect(pearson(envelope(out, start, stop), envelope(echo, start, stop))).toBeLessThan(0.1);
  });

  it('cancels the echo of a 48 kHz stereo speaker once told to resample it', async () => {
    const far = await librivox('0890');
    const mic = simulateMic(far, PATH);
    // What the speaker played: the same speech at 48 kHz, on both channels.
    const up = floatToInt16(new Resampler(RATE, 48_000).push(int16ToFloat(far)));
    const stereo = new Int16Array(up.length * 2);
    for (let i = 0; i < up.length; i++) stereo[2 * i] = stereo[2 * i + 1] = up[i]!;
    const apm = new WebRtcApm({ render: { sampleRate: 48_000, channels: 2 }, renderMismatch: 'resample', gainControl: false });
    const out = new Int16Array(mic.length);
    const frames = Math.min(Math.floor(mic.length / 160), Math.floor(stereo.length / 960));
    for (let f = 0; f < frames; f++) {
      apm.processRender(stereo.subarray(f * 960, (f + 1) * 960));
      out.set(apm.processCapture(mic.subarray(f * 160, (f + 1) * 160)), f * 160);
    }
    apm.close();
    expect(erleDb(mic, out, SETTLED, frames * 160)).toBeGreaterThanOrEqual(20);
  });

  it('is deterministic: the same input gives the same output', async () => {
    const far = (await librivox('0870')).subarray(0, 3 * RATE);
    const mic = simulateMic(far, PATH);
    const run = (): Int16Array => {
      const apm = new WebRtcApm();
      const { out } = runEchoLoop(apm, far, mic);
      apm.close();
      return out;
    };
    expect(Buffer.from(run().buffer).equals(Buffer.from(run().buffer))).toBe(true);
  });
});
