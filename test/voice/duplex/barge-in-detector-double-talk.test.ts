import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARGE_IN_APM, DOUBLE_TALK_APM } from '../../support/barge-in-apm.js';
import { assistantVoice, echoScene, loadClip, playScene, type Scene } from '../../support/echo-scenes.js';
import { WebRtcApm, type Apm, type ApmStats } from '../../../src/voice/apm/index.js';
import { simulateMic } from '../../support/synthetic-echo.js';
import { BargeInDetector } from '../../../src/voice/duplex/index.js';
import { DoubleTalkMeter } from '../../../src/voice/duplex/double-talk-meter.js';
import { SileroVad } from '../../../src/voice/vad/index.js';
import { ScriptedVad } from '../vad/scripted-vad.js';
import { seededRandom } from '../../support/seeded-random.js';

/** An Apm that hands the capture back unchanged: the double-talk rule must not rely on the canceller. */
class PassThroughApm implements Apm {
  readonly format = { sampleRate: 16_000, channels: 1 };
  readonly frameSamples = 160;
  processRender(): void {}
  processCapture(frame: Int16Array): Int16Array {
    return frame.slice();
  }
  setStreamDelayMs(): void {}
  stats(): ApmStats {
    return { framesRendered: 0, framesCaptured: 0, streamHasEcho: false };
  }
  close(): void {}
}

/** Speech-like audio: white noise under a syllable envelope (on 150 ms, off 60 ms), at `level` or levels varying; deterministic. */
function syllables(ms: number, seed = 3, level?: number): Int16Array {
  const random = seededRandom(seed);
  const out = new Int16Array(ms * 16);
  for (let start = 0; start < out.length; start += 210 * 16) {
    const peak = level ?? 2000 + random() * 6000;
    for (let i = start; i < Math.min(out.length, start + 150 * 16); i++) out[i] = Math.round((random() - 0.5) * 2 * peak);
  }
  return out;
}

/** The render with its echo (60 ms, 0.5) at the mic, and `near` added from `nearAtMs` on. */
function syntheticScene(near?: { samples: Int16Array; atMs: number }): Scene {
  const far = syllables(3000);
  const user = new Int16Array(far.length);
  if (near) user.set(near.samples.subarray(0, far.length - near.atMs * 16), near.atMs * 16);
  return { far, mic: simulateMic(far, { delayMs: 60, gain: 0.5, noise: 20, seed: 5 }, 16_000, user) };
}

/**
 * The render through a reverberant room, as the microphone hears it: the
 * direct echo (60 ms, 0.5), then a tail of seeded random taps every 1 ms
 * whose level falls 60 dB in `rt60` seconds, `wetDb` under the direct sound
 * in all; and `near` added from `nearAtMs` on.
 */
function reverberantScene(rt60: number, near?: { samples: Int16Array; atMs: number }, wetDb = -8): Scene {
  const far = syllables(4000);
  const random = seededRandom(17);
  const taps: Array<[at: number, gain: number]> = [];
  for (let ms = 65; ms < 60 + rt60 * 1000; ms++) taps.push([ms * 16, (random() < 0.5 ? -1 : 1) * 10 ** ((-3 * (ms - 60)) / (rt60 * 1000))]);
  const tapEnergy = taps.reduce((sum, [, g]) => sum + g * g, 0);
  const scale = Math.sqrt((0.25 * 10 ** (wetDb / 10)) / tapEnergy);
  const mic = new Float64Array(far.length);
  for (let i = 0; i < far.length; i++) {
    const x = far[i]!;
    if (x === 0) continue;
    if (i + 960 < mic.length) mic[i + 960]! += 0.5 * x;
    for (const [at, gain] of taps) if (i + at < mic.length) mic[i + at]! += scale * gain * x;
  }
  if (near) for (let i = 0; i < near.samples.length && near.atMs * 16 + i < mic.length; i++) mic[near.atMs * 16 + i]! += near.samples[i]!;
  return { far, mic: Int16Array.from(mic, (v) => Math.max(-32768, Math.min(32767, Math.round(v)))) };
}

describe('DoubleTalkMeter', () => {
  function excesses(scene: Scene, meter = new DoubleTalkMeter()): number[] {
    const out: number[] = [];
    for (let s = 0; s + 160 <= scene.far.length; s += 160) out.push(meter.push(scene.mic.subarray(s, s + 160), scene.far.subarray(s, s + 160)));
    return out;
  }

  it('keeps echo-only frames below the 6 dB default once it has learnt the echo', () => {
    const finite = excesses(syntheticScene()).slice(60).filter(Number.isFinite);
    expect(finite.length).toBeGreaterThan(100);
    expect(Math.max(...finite)).toBeLessThan(6);
  });

  it("keeps a reverberant room's echo (0.6 s) below the 6 dB default once it has learnt how fast the room dies away", () => {
    const meter = new DoubleTalkMeter();
    excesses(reverberantScene(0.6), meter);
    // The second pass is the room as the meter now knows it.
    const finite = excesses(reverberantScene(0.6), meter).filter(Number.isFinite);
    expect(finite.length).toBeGreaterThan(300);
    expect(Math.max(...finite)).toBeLessThan(6);
    // No frame of pure ringing after a syllable counts as a loud mic over silence.
    expect(excesses(reverberantScene(0.6), meter).filter((dB) => dB === Infinity)).toEqual([]);
    expect(meter.reverberationTimeS).toBeGreaterThan(0.3);
    expect(meter.reverberationTimeS).toBeLessThan(1.2);
  });

  it('learns that a dry room dies away at once, and still hears a voice in a reverberant one', () => {
    const dry = new DoubleTalkMeter();
    // Words with pauses between them, as a reply has: the fall after each is measured.
    const far = syllables(4000).map((x, i) => (i % (16 * 500) < 16 * 300 ? x : 0));
    excesses({ far, mic: simulateMic(far, { delayMs: 60, gain: 0.5, noise: 20, seed: 5 }) }, dry);
    expect(dry.reverberationTimeS).toBeLessThan(0.3);
    const meter = new DoubleTalkMeter();
    excesses(reverberantScene(0.6), meter);
    const during = excesses(reverberantScene(0.6, { samples: syllables(1000, 11, 8000), atMs: 2500 }), meter).slice(250, 265);
    expect(during.filter((dB) => dB >= 6).length).toBeGreaterThanOrEqual(8);
  });

  it('puts a voice as loud as the loudest render well above the predicted echo', () => {
    const scene = syntheticScene({ samples: syllables(1000, 11, 8000), atMs: 1500 });
    const during = excesses(scene).slice(150, 165);
    expect(during.filter((dB) => dB >= 6).length).toBeGreaterThanOrEqual(8);
  });
});

describe('BargeInDetector double-talk rule with a pass-through APM and scripted VADs', () => {
  /** The cleaned path never qualifies; the double-talk VAD always says 0.9, so only the energy gate decides. */
  async function events(scene: Scene) {
    const detector = new BargeInDetector({
      apm: new PassThroughApm(),
      vad: new ScriptedVad(() => 0),
      doubleTalk: { apm: new PassThroughApm(), vad: new ScriptedVad(() => 0.9) },
    });
    return playScene(detector, scene);
  }

  it('gives no event on echo alone, however sure the second VAD is', async () => {
    expect(await events(syntheticScene())).toEqual([]);
  });

  it('gives one event when a voice joins the echo, two windows after the louder-than-echo window', async () => {
    const found = await events(syntheticScene({ samples: syllables(1000, 11, 8000), atMs: 1500 }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ type: 'speech_started', duringPlayback: true, rule: 'double_talk' });
    // The second path's own score for the confirming window: the rule decided, nothing rescales it for a second check.
    expect(found[0]!.confidence).toBe(0.9);
    expect(found[0]!.startedAtMs).toBeGreaterThanOrEqual(1500 - 32);
    expect(found[0]!.atMs - found[0]!.startedAtMs).toBe(64);
  });

  it('reports the second path in each window and rejects a shared VAD', async () => {
    const vad = new ScriptedVad(() => 0);
    const detector = new BargeInDetector({ apm: new PassThroughApm(), vad, doubleTalk: { apm: new PassThroughApm(), vad: new ScriptedVad(() => 0.4) } });
    const first = await detector.process(new Int16Array(320), new Int16Array(320));
    const second = await detector.process(new Int16Array(320), new Int16Array(320));
    expect(first.windows).toEqual([]);
    expect(second.windows).toEqual([{ startMs: 0, probability: 0, doubleTalk: { probability: 0.4, excessDb: -Infinity } }]);
    expect(() => new BargeInDetector({ apm: new PassThroughApm(), vad, doubleTalk: { apm: new PassThroughApm(), vad } })).toThrow();
  });
});

describe('BargeInDetector double-talk rule with WebRtcApm and Silero VAD', () => {
  let vad: SileroVad;
  let secondVad: SileroVad;
  beforeAll(async () => {
    [vad, secondVad] = await Promise.all([SileroVad.load(), SileroVad.load()]);
  });
  afterAll(async () => {
    await Promise.all([vad.close(), secondVad.close()]);
  });

  async function run(scene: Scene, doubleTalk: boolean) {
    const apm = new WebRtcApm(BARGE_IN_APM);
    const second = new WebRtcApm(DOUBLE_TALK_APM);
    vad.reset();
    secondVad.reset();
    try {
      const detector = new BargeInDetector({ apm, vad, ...(doubleTalk ? { doubleTalk: { apm: second, vad: secondVad } } : {}) });
      return await playScene(detector, scene);
    } finally {
      apm.close();
      second.close();
    }
  }

  it('does not interrupt on the echo of its own voice, loud and late (bench echo trial 24 of the echo-only set)', async () => {
    const scene = echoScene(assistantVoice(), { delayMs: 112, gain: 0.56, noise: 60, seed: 25 });
    expect(await run(scene, true)).toEqual([]);
  });

  it('catches a voice over loud echo sooner than the cleaned path alone (bench speech trial 27)', async () => {
    const clip = await loadClip('/usr/share/pocketsphinx/test/data/cards/003.wav');
    const path = { delayMs: 20.9, gain: 0.53, noise: 11.8, seed: 127 };
    const scene = echoScene(assistantVoice().subarray(0, 4500 * 16), path, { samples: clip, atMs: 1405, gain: 0.91 });
    const onsetMs = scene.speechOnset! / 16;
    const [withPath] = await run(scene, true);
    const [alone] = await run(scene, false);
    expect(withPath!.atMs).toBeGreaterThanOrEqual(onsetMs);
    expect(withPath!.atMs - onsetMs).toBeLessThanOrEqual(200);
    expect(alone!.atMs - onsetMs).toBeGreaterThan(250);
  });
});
