import { WebRtcApm } from '../src/voice/apm/index.js';
import { erleDb, runEchoLoop, simulateMic, type EchoPath } from '../test/support/synthetic-echo.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { librivoxClips } from '../test/support/speech-clips.js';
import { distribution, mean, p50, percentile, round } from '../test/support/stats.js';
import { seededRandom } from '../test/support/seeded-random.js';

const TRIALS = 50;
/** The AEC converges in the first second or two; ERLE is measured after. */
const SETTLED_SAMPLES = 2 * 16_000;

/**
 * WebRTC APM (native/webrtc-apm over Debian's libwebrtc-audio-processing)
 * on 50 synthetic echoes: each LibriVox clip as the far end, heard by the
 * microphone 20..120 ms later at 0.2..0.8 of its level plus white noise (a
 * fixed seed, so runs compare). Time per 10 ms frame (render + capture),
 * and ERLE = 10 log10(energy(mic) / energy(out)) after 2 s, with the AEC
 * alone and with noise suppression; gain control off (it would change the
 * output level and so the figure).
 */
export const apm: Benchmark = {
  name: 'apm',
  description: 'WebRTC APM ms per 10 ms frame and ERLE dB on 50 synthetic echoes (delay 20-120 ms, gain 0.2-0.8, noise)',
  run: runApm,
};

async function runApm(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const clips = await librivoxClips();
  const next = seededRandom(2024);
  const frames: number[] = [];
  const aecOnly: number[] = [];
  const withNs: number[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    options.signal?.throwIfAborted();
    const far = clips[trial % clips.length]!.samples;
    const path: EchoPath = { delayMs: 20 + next() * 100, gain: 0.2 + next() * 0.6, noise: 5 + next() * 95, seed: trial + 1 };
    const mic = simulateMic(far, path);
    for (const ns of [false, true]) {
      const engine = new WebRtcApm({ noiseSuppression: ns ? 'moderate' : false, gainControl: false });
      try {
        const { out, frameMs } = runEchoLoop(engine, far, mic);
        (ns ? withNs : aecOnly).push(erleDb(mic, out, SETTLED_SAMPLES));
        if (ns) frames.push(...frameMs);
      } finally {
        engine.close();
      }
    }
  }
  return {
    trials: TRIALS,
    frames: frames.length,
    ...distribution('frame', frames, true),
    erle_aec_p50_db: round(p50(aecOnly), 1),
    erle_aec_p5_db: round(percentile(aecOnly, 5), 1),
    erle_aec_min_db: round(Math.min(...aecOnly), 1),
    erle_aec_mean_db: round(mean(aecOnly), 1),
    erle_aec_ns_p50_db: round(p50(withNs), 1),
    erle_aec_ns_min_db: round(Math.min(...withNs), 1),
    trials_aec_at_least_20_db: aecOnly.filter((db) => db >= 20).length,
  };
}

