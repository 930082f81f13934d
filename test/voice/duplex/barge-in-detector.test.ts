import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARGE_IN_APM } from '../../support/barge-in-apm.js';
import { assistantVoice, echoScene, loadClip, playScene } from '../../support/echo-scenes.js';
import { WebRtcApm, type Apm, type ApmStats } from '../../../src/voice/apm/index.js';
import { BargeInDetector } from '../../../src/voice/duplex/index.js';
import { SileroVad } from '../../../src/voice/vad/index.js';
import { ScriptedVad } from '../vad/scripted-vad.js';

/** An Apm that subtracts the render from the capture (a perfect echo canceller), and records the calls. */
class SubtractingApm implements Apm {
  readonly format = { sampleRate: 16_000, channels: 1 };
  readonly frameSamples = 160;
  readonly calls: string[] = [];
  private last = new Int16Array(160);
  processRender(frame: Int16Array): void {
    this.calls.push(`render:${frame.length}`);
    this.last = frame.slice();
  }
  processCapture(frame: Int16Array): Int16Array {
    this.calls.push(`capture:${frame.length}`);
    return frame.map((v, i) => v - this.last[i]!);
  }
  setStreamDelayMs(): void {}
  stats(): ApmStats {
    return { framesRendered: 0, framesCaptured: 0, streamHasEcho: false };
  }
  close(): void {}
}

const FRAME = 320;
const frame = (value: number) => new Int16Array(FRAME).fill(value);

/** Feeds `frames` frames of mic `value` (render too when playing) and returns the events' fields. */
async function feed(detector: BargeInDetector, frames: number, playing: boolean) {
  const events = [];
  for (let f = 0; f < frames; f++) {
    const result = await detector.process(frame(1), playing ? frame(0) : null);
    if (result.event) events.push(result.event);
  }
  return events;
}

describe('BargeInDetector with a fake APM and VAD', () => {
  it('calls the APM render then capture, twice per 20 ms frame, and scores the cleaned audio in 512-sample windows', async () => {
    const apm = new SubtractingApm();
    const vad = new ScriptedVad([]);
    const detector = new BargeInDetector({ apm, vad });
    const results = [];
    for (let f = 0; f < 8; f++) results.push(await detector.process(frame(500), frame(200)));
    expect(apm.calls.slice(0, 4)).toEqual(['render:160', 'capture:160', 'render:160', 'capture:160']);
    expect(results[0]!.cleaned.every((v) => v === 300)).toBe(true);
    // 8 frames = 2560 samples = 5 windows, completed by frames 2, 4, 5, 7 and 8.
    expect(results.map((r) => r.windows.length)).toEqual([0, 1, 0, 1, 1, 0, 1, 1]);
    expect(results.map((r) => r.atMs)).toEqual([0, 20, 40, 60, 80, 100, 120, 140]);
    expect(results.flatMap((r) => r.windows.map((w) => w.startMs))).toEqual([0, 32, 64, 96, 128]);
    expect(vad.windows.every((w) => w.length === 512 && w.every((v) => v === 300))).toBe(true);
  });

  it('during playback needs windows at bargeInThreshold adding up to minBargeInSpeechMs', async () => {
    // 0.79 is below 0.8; three windows (96 ms) are short of 100 ms; the fourth confirms.
    const vad = new ScriptedVad([0.79, 0.79, 0.9, 0.9, 0.9, 0.3, 0.85, 0.9, 0.95, 0.99, 0.99]);
    const detector = new BargeInDetector({ apm: new SubtractingApm(), vad });
    const events = await feed(detector, 18, true);
    expect(events).toEqual([{ type: 'speech_started', confidence: 0.99, startedAtMs: 192, atMs: 320, duringPlayback: true, rule: 'cleaned' }]);
  });

  it('outside playback one window at speechThreshold is enough', async () => {
    const vad = new ScriptedVad([0.4, 0.6]);
    const events = await feed(new BargeInDetector({ apm: new SubtractingApm(), vad }), 4, false);
    expect(events).toEqual([{ type: 'speech_started', confidence: 0.6, startedAtMs: 32, atMs: 64, duringPlayback: false, rule: 'cleaned' }]);
  });

  it('reports one onset per utterance: re-armed by a window below speechThreshold', async () => {
    const vad = new ScriptedVad([0.9, 0.9, 0.6, 0.2, 0.9]);
    const events = await feed(new BargeInDetector({ apm: new SubtractingApm(), vad }), 8, false);
    expect(events.map((e) => e.startedAtMs)).toEqual([0, 128]);
  });

  it('follows the config and rejects frames of the wrong length', async () => {
    const vad = new ScriptedVad([0.9, 0.9]);
    const detector = new BargeInDetector({ apm: new SubtractingApm(), vad, config: { minBargeInSpeechMs: 0 } });
    expect((await feed(detector, 2, true)).map((e) => e.atMs)).toEqual([32]);
    await expect(detector.process(new Int16Array(160))).rejects.toMatchObject({ code: 'DUPLEX_FRAME_INVALID' });
    await expect(detector.process(frame(0), new Int16Array(10))).rejects.toMatchObject({ code: 'DUPLEX_FRAME_INVALID' });
    expect(() => new BargeInDetector({ apm: new SubtractingApm(), vad, config: { bargeInThreshold: 2 } })).toThrow();
  });
});

describe('BargeInDetector with WebRtcApm and Silero VAD on a synthetic echo', () => {
  const PATH = { delayMs: 40, gain: 0.5, noise: 30, seed: 7 };
  let vad: SileroVad;
  beforeAll(async () => {
    vad = await SileroVad.load();
  });
  afterAll(async () => {
    await vad.close();
  });

  async function run(scene: ReturnType<typeof echoScene>) {
    const apm = new WebRtcApm(BARGE_IN_APM);
    vad.reset();
    try {
      return await playScene(new BargeInDetector({ apm, vad }), scene);
    } finally {
      apm.close();
    }
  }

  it('does not interrupt on the echo of its own voice', async () => {
    expect(await run(echoScene(assistantVoice(), PATH))).toEqual([]);
  });

  it('detects the user talking over the echo within 300 ms of the first voiced audio', async () => {
    const clip = await loadClip('/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0890.wav');
    const scene = echoScene(assistantVoice().subarray(0, 4 * 16_000), PATH, { samples: clip, atMs: 1000, gain: 1.5 });
    const onsetMs = scene.speechOnset! / 16;
    const events = await run(scene);
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events[0]!.duringPlayback).toBe(true);
    expect(events[0]!.atMs).toBeGreaterThanOrEqual(onsetMs);
    expect(events[0]!.atMs - onsetMs).toBeLessThanOrEqual(300);
  });
});
