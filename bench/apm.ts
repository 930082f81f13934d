import { createApm, ECHO_CANCELLERS, type Apm, type EchoCanceller } from '../src/voice/apm/index.js';
import { erleDb, runEchoLoop, simulateMic, type EchoPath } from '../test/support/synthetic-echo.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { librivoxClips } from '../test/support/speech-clips.js';
import { distribution, mean, p50, percentile, round } from '../test/support/stats.js';
import { seededRandom } from '../test/support/seeded-random.js';

const TRIALS = 50;
/** The cancellers converge in the first second or two; ERLE is measured after. */
const SETTLED_SAMPLES = 2 * 16_000;
/** The microphone hears exactly what was played, at once: the echo is a bit-exact copy. */
const LOOPBACK: EchoPath = { delayMs: 0, gain: 1 };

/**
 * Both echo cancellers side by side, each on the same inputs: the legacy
 * AEC (Debian's libwebrtc-audio-processing 0.3 through native/webrtc-apm)
 * and AEC3 (WebRTC's current canceller through @livekit/rtc-ffi-bindings).
 * 50 synthetic echoes: each LibriVox clip as the far end, heard by the
 * microphone 20..120 ms later at 0.2..0.8 of its level plus white noise (a
 * fixed seed, so runs compare); and the exact loopback of each of the five
 * clips. Time per 10 ms frame (render + capture, noise suppression on), and
 * ERLE = 10 log10(energy(mic) / energy(out)) after 2 s, with the canceller
 * alone and with noise suppression; gain control off (it would change the
 * output level and so the figure).
 */
export const apm: Benchmark = {
  name: 'apm',
  description: 'legacy AEC and AEC3 side by side: ms per 10 ms frame and ERLE dB on 50 synthetic echoes (delay 20-120 ms, gain 0.2-0.8, noise) and on an exact loopback',
  run: runApm,
};

interface Results {
  frames: number[];
  aecOnly: number[];
  withNs: number[];
  loopback: number[];
}

async function runApm(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const clips = await librivoxClips();
  const results = Object.fromEntries(ECHO_CANCELLERS.map((c) => [c, { frames: [], aecOnly: [], withNs: [], loopback: [] } as Results])) as Record<EchoCanceller, Results>;
  const next = seededRandom(2024);
  for (let trial = 0; trial < TRIALS; trial++) {
    options.signal?.throwIfAborted();
    const far = clips[trial % clips.length]!.samples;
    const path: EchoPath = { delayMs: 20 + next() * 100, gain: 0.2 + next() * 0.6, noise: 5 + next() * 95, seed: trial + 1 };
    const mic = simulateMic(far, path);
    for (const canceller of ECHO_CANCELLERS) {
      const r = results[canceller];
      r.aecOnly.push(measure(canceller, false, far, mic).erle);
      const ns = measure(canceller, true, far, mic);
      r.withNs.push(ns.erle);
      r.frames.push(...ns.frameMs);
    }
  }
  for (const { samples: far } of clips) {
    const mic = simulateMic(far, LOOPBACK);
    for (const canceller of ECHO_CANCELLERS) results[canceller].loopback.push(measure(canceller, false, far, mic).erle);
  }
  const figures: Figures = { trials: TRIALS, loopback_clips: clips.length };
  for (const canceller of ECHO_CANCELLERS) Object.assign(figures, cancellerFigures(canceller, results[canceller]));
  return figures;
}

function measure(canceller: EchoCanceller, noiseSuppression: boolean, far: Int16Array, mic: Int16Array): { erle: number; frameMs: number[] } {
  const engine: Apm = createApm(canceller, { noiseSuppression: noiseSuppression ? 'moderate' : false, gainControl: false });
  try {
    const { out, frameMs } = runEchoLoop(engine, far, mic);
    return { erle: erleDb(mic, out, SETTLED_SAMPLES), frameMs };
  } finally {
    engine.close();
  }
}

function cancellerFigures(canceller: EchoCanceller, r: Results): Figures {
  const figures: Figures = {
    frames: r.frames.length,
    ...distribution('frame', r.frames, true),
    erle_aec_p50_db: round(p50(r.aecOnly), 1),
    erle_aec_p5_db: round(percentile(r.aecOnly, 5), 1),
    erle_aec_min_db: round(Math.min(...r.aecOnly), 1),
    erle_aec_mean_db: round(mean(r.aecOnly), 1),
    erle_aec_ns_p50_db: round(p50(r.withNs), 1),
    erle_aec_ns_min_db: round(Math.min(...r.withNs), 1),
    trials_aec_at_least_20_db: r.aecOnly.filter((db) => db >= 20).length,
    erle_loopback_p50_db: round(p50(r.loopback), 1),
    erle_loopback_min_db: round(Math.min(...r.loopback), 1),
  };
  return Object.fromEntries(Object.entries(figures).map(([key, value]) => [`${canceller}_${key}`, value]));
}
