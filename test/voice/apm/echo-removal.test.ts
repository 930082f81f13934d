/**
 * Both echo cancellers on the same synthetic echoes (LibriVox speech as the
 * far end): the legacy AEC (Debian's webrtc-audio-processing, the addon) and
 * AEC3 (@livekit/rtc-ffi-bindings). Each floor is what was measured here on
 * these clips less about 5 dB: legacy 29.1 dB alone on the delayed noisy echo,
 * 19.1 on the exact loopback; AEC3 34.9, 44.2 and 47.1 with noise suppression.
 */
import { describe, expect, it } from 'vitest';
import { Aec3Apm, WebRtcApm, type Apm } from '../../../src/voice/apm/index.js';
import { Resampler, floatToInt16, int16ToFloat } from '../../../src/voice/audio/index.js';
import { energy, erleDb, runEchoLoop, simulateMic } from '../../support/synthetic-echo.js';
import { envelope, librivox, pearson } from './clips.js';

const RATE = 16_000;
/** The cancellers adapt over the first second or two; measure after. */
const SETTLED = 2 * RATE;
const PATH = { delayMs: 40, gain: 0.5, noise: 30, seed: 7 };

interface Canceller {
  name: string;
  /** Both defaults on unless turned off here (the two take different values for 'on'). */
  make(options?: { noiseSuppression?: false; gainControl?: false; render?: { sampleRate: number; channels: number }; renderMismatch?: 'resample' }): Apm;
  /** dB removed at least: alone on the delayed noisy echo, on the exact loopback, with noise suppression. */
  floors: { alone: number; loopback: number; suppressed: number };
  /** In double talk: the user at least this far above the echo's residue. */
  userOverResidueDb: number;
}

const CANCELLERS: Canceller[] = [
  { name: 'legacy (WebRtcApm)', make: (o) => new WebRtcApm(o), floors: { alone: 20, loopback: 14, suppressed: 30 }, userOverResidueDb: 10 },
  { name: 'AEC3 (Aec3Apm)', make: (o) => new Aec3Apm(o), floors: { alone: 30, loopback: 40, suppressed: 40 }, userOverResidueDb: 35 },
];

describe.each(CANCELLERS)('$name on a synthetic echo', ({ make, floors, userOverResidueDb }) => {
  it('removes the delayed, noisy echo with echo cancellation alone, counting every frame', async () => {
    const far = await librivox('0870');
    const mic = simulateMic(far, PATH);
    const apm = make({ noiseSuppression: false, gainControl: false });
    try {
      const { out } = runEchoLoop(apm, far, mic);
      expect(erleDb(mic, out, SETTLED)).toBeGreaterThanOrEqual(floors.alone);
      expect(apm.stats()).toMatchObject({ framesRendered: Math.floor(far.length / 160), framesCaptured: Math.floor(far.length / 160) });
    } finally {
      apm.close();
    }
  });

  it('removes an exact loopback (no delay, full level)', async () => {
    const far = await librivox('0870');
    const mic = simulateMic(far, { delayMs: 0, gain: 1 });
    const apm = make({ noiseSuppression: false, gainControl: false });
    const { out } = runEchoLoop(apm, far, mic);
    apm.close();
    expect(erleDb(mic, out, SETTLED)).toBeGreaterThanOrEqual(floors.loopback);
  });

  it('removes more with noise suppression on (gain control off)', async () => {
    const far = await librivox('0870');
    const mic = simulateMic(far, PATH);
    const apm = make({ gainControl: false });
    const { out } = runEchoLoop(apm, far, mic);
    apm.close();
    expect(erleDb(mic, out, SETTLED)).toBeGreaterThanOrEqual(floors.suppressed);
  });

  it('keeps the near-end speaker during double talk', async () => {
    const far = await librivox('0870');
    const user = await librivox('0880');
    // The user talks over the assistant from 3 s, at the echo's level.
    const start = 3 * RATE;
    const end = Math.min(far.length, start + user.length);
    const near = new Int16Array(far.length);
    for (let i = start; i < end; i++) near[i] = user[i - start]! * 0.5;
    const apm = make({ gainControl: false });
    const { out } = runEchoLoop(apm, far, simulateMic(far, PATH, RATE, near));
    apm.close();
    const echoOnly = make({ gainControl: false });
    const quiet = runEchoLoop(echoOnly, far, simulateMic(far, PATH)).out;
    echoOnly.close();

    const stop = Math.min(end, out.length);
    // The user's speech stands above what is left of the echo alone, and the output's loudness follows the user, not the echo.
    expect(10 * Math.log10(energy(out, start, stop) / energy(quiet, start, stop))).toBeGreaterThan(userOverResidueDb);
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
    const apm = make({ render: { sampleRate: 48_000, channels: 2 }, renderMismatch: 'resample', gainControl: false });
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
      const apm = make();
      const { out } = runEchoLoop(apm, far, mic);
      apm.close();
      return out;
    };
    expect(Buffer.from(run().buffer).equals(Buffer.from(run().buffer))).toBe(true);
  });
});

describe('the legacy canceller reports what it measured', () => {
  it('its ERLE and the delay it found', async () => {
    const far = await librivox('0870');
    const apm = new WebRtcApm({ noiseSuppression: false, gainControl: false });
    try {
      runEchoLoop(apm, far, simulateMic(far, PATH));
      const stats = apm.stats();
      expect(stats.erleDb).toBeGreaterThanOrEqual(15);
      // The delay-agnostic AEC's estimate: the true 40 ms less its own buffering.
      expect(stats.delayMedianMs).toBeGreaterThanOrEqual(0);
      expect(stats.delayMedianMs).toBeLessThanOrEqual(60);
    } finally {
      apm.close();
    }
  });
});
