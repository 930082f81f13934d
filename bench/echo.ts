import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WebRtcApm, type WebRtcApmOptions } from '../src/voice/apm/index.js';
import { BargeInDetector, type DuplexConfig } from '../src/voice/duplex/index.js';
import { SileroVad } from '../src/voice/vad/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { ASSISTANT_SENTENCES, assistantVoice, echoScene, loadClip, playScene } from '../test/support/echo-scenes.js';
import { BARGE_IN_APM, DOUBLE_TALK_APM } from '../test/support/barge-in-apm.js';
import { LIBRIVOX_DIR } from '../test/support/speech-clips.js';
import { distribution, round } from '../test/support/stats.js';
import { seededRandom } from '../test/support/seeded-random.js';

const ECHO_TRIALS = 50;
const SPEECH_TRIALS = 50;
const CARDS_DIR = '/usr/share/pocketsphinx/test/data/cards';
/** Speech-over-echo trials play this much of the assistant; the user starts 0.5..2 s in. */
const SPEECH_PLAYBACK_MS = 4500;

/**
 * The barge-in path (WebRtcApm + Silero VAD + BargeInDetector with the
 * duplex defaults and its double-talk path) on synthetic echoes of the assistant's espeak-ng voice:
 * 50 echo-only trials (delay 20..120 ms, level 0.2..0.8, white noise)
 * counting false interruptions, and 50 trials with a user clip (LibriVox
 * and cards, level 0.5..1.5) starting 0.5..2 s into playback over a
 * 20..120 ms echo, counting detections and the latency from the clip's
 * first voiced audio to the confirming VAD window's end, in audio time.
 * A fresh APM and VAD state per trial (the AEC starts unconverged); fixed
 * seeds, so runs compare.
 */
export const echo: Benchmark = {
  name: 'echo',
  description: 'barge-in over echo: false interruptions on 50 echo-only trials, detections and onset latency on 50 speech-over-echo trials',
  run: runEcho,
};

async function runEcho(options: BenchmarkRunOptions = {}): Promise<Figures> {
  return runEchoTrials(BARGE_IN_APM, options, DOUBLE_TALK_APM);
}

/** Which paths a trial's detector gets: the cleaned one, and the double-talk one unless `doubleTalkApm` is false. */
interface DetectorSetup {
  vad: SileroVad;
  apm: WebRtcApmOptions;
  doubleTalk?: { vad: SileroVad; apm: WebRtcApmOptions };
  config?: Partial<DuplexConfig>;
}

/** The trials with another APM configuration, double-talk path (`false` for none) or detector config, for comparing. */
export async function runEchoTrials(
  apmOptions: WebRtcApmOptions,
  options: BenchmarkRunOptions = {},
  doubleTalkApm: WebRtcApmOptions | false = false,
  config: Partial<DuplexConfig> = {},
): Promise<Figures> {
  const vad = await SileroVad.load();
  const secondVad = doubleTalkApm ? await SileroVad.load() : undefined;
  const setup: DetectorSetup = { vad, apm: apmOptions, config, ...(secondVad && doubleTalkApm ? { doubleTalk: { vad: secondVad, apm: doubleTalkApm } } : {}) };
  try {
    const far = assistantVoice(ASSISTANT_SENTENCES);
    const clips = await userClips();
    const next = seededRandom(4242);
    let falseInterruptions = 0;
    let echoTrialsWithFalse = 0;
    for (let trial = 0; trial < ECHO_TRIALS; trial++) {
      options.signal?.throwIfAborted();
      const path = { delayMs: 20 + next() * 100, gain: 0.2 + next() * 0.6, noise: 5 + next() * 95, seed: trial + 1 };
      const events = await withDetector(setup, (detector) => playScene(detector, echoScene(far, path)));
      falseInterruptions += events.length;
      if (events.length > 0) echoTrialsWithFalse++;
    }
    const latencies: number[] = [];
    let early = 0;
    const playback = far.subarray(0, (SPEECH_PLAYBACK_MS * 16_000) / 1000);
    for (let trial = 0; trial < SPEECH_TRIALS; trial++) {
      options.signal?.throwIfAborted();
      const clip = clips[trial % clips.length]!;
      const path = { delayMs: 20 + next() * 100, gain: 0.2 + next() * 0.6, noise: 5 + next() * 95, seed: 100 + trial };
      const near = { samples: clip, atMs: 500 + Math.round(next() * 1500), gain: 0.5 + next() };
      const scene = echoScene(playback, path, near);
      const onsetMs = (scene.speechOnset! * 1000) / 16_000;
      const events = await withDetector(setup, (detector) => playScene(detector, scene));
      // A detection counts from the first event at or after the user's onset; one before it is a false interruption.
      if (events.some((e) => e.atMs < onsetMs)) early++;
      const hit = events.find((e) => e.atMs >= onsetMs);
      if (hit) latencies.push(hit.atMs - onsetMs);
    }
    return {
      echo_trials: ECHO_TRIALS,
      false_interruptions: falseInterruptions,
      echo_trials_with_false_interruption: echoTrialsWithFalse,
      speech_trials: SPEECH_TRIALS,
      detections: latencies.length,
      detection_rate: round(latencies.length / SPEECH_TRIALS, 3),
      speech_trials_interrupted_before_onset: early,
      ...(latencies.length > 0 ? distribution('latency', latencies, true) : {}),
      latency_max_ms: latencies.length > 0 ? round(Math.max(...latencies)) : 'n/a',
      within_300_ms: latencies.filter((ms) => ms <= 300).length,
    };
  } finally {
    await vad.close();
    await secondVad?.close();
  }
}

async function withDetector<T>(setup: DetectorSetup, fn: (detector: BargeInDetector) => Promise<T>): Promise<T> {
  const apm = new WebRtcApm(setup.apm);
  const second = setup.doubleTalk ? { apm: new WebRtcApm(setup.doubleTalk.apm), vad: setup.doubleTalk.vad } : undefined;
  setup.vad.reset();
  second?.vad.reset();
  try {
    return await fn(new BargeInDetector({ apm, vad: setup.vad, config: setup.config ?? {}, ...(second ? { doubleTalk: second } : {}) }));
  } finally {
    apm.close();
    second?.apm.close();
  }
}

export async function userClips(): Promise<Int16Array[]> {
  const paths: string[] = [];
  for (const dir of [LIBRIVOX_DIR, CARDS_DIR]) {
    const names = (await readdir(dir)).filter((n) => n.endsWith('.wav')).sort();
    paths.push(...names.map((n) => join(dir, n)));
  }
  return Promise.all(paths.map(loadClip));
}

