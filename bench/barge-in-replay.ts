/**
 * A recorded barge-in run (bench/barge-in.ts with BARGE_IN_RECORD=folder)
 * replayed offline through other double-talk meters and rule settings:
 * every microphone frame and the render the live detector paired with it
 * go through fresh echo cancellers and Silero states, as live, once per
 * meter; the windows' scores then go through BargeInRule once per setting.
 * Per room and arm: false onsets in the echo-only replies and before the
 * clip in the talked-over ones, detections, and the latency from the
 * clip's voiced onset to the confirming window (the live figure adds the
 * few ms to the playback stop). What a replay cannot tell: after the live
 * run stopped playback, the rest of the reply was never played, so an arm
 * slower than the live rule meets a quieter microphone than it would have
 * (counted as `after_live_stop`); and nothing is recognized here.
 *
 *   BARGE_IN_REPLAY=/tmp/rec npm run bench -- barge-in-replay
 */
import { defaultConfig } from '../src/config/index.js';
import { createApm, type ApmLevel, type EchoCanceller } from '../src/voice/apm/index.js';
import { BandDoubleTalkMeter, BargeInDetector, BargeInRule, DoubleTalkMeter, DUPLEX_DEFAULTS, type DoubleTalkWindow, type DuplexConfig } from '../src/voice/duplex/index.js';
import type { EchoExcessMeter } from '../src/voice/duplex/index.js';
import { apmOptionsFromConfig } from '../src/voice/live-duplex.js';
import { SileroVad } from '../src/voice/vad/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { replayCancellers } from './lib/barge-in-replay-cancellers.js';
import { readRecordedRoom, recordedRoomNames, type RecordedTrial, type RunRecordingFile } from './lib/run-recording.js';
import { percentile, round } from '../test/support/stats.js';

/**
 * The detector's paths compared: the double-talk meter, and the two echo
 * cancellers' suppression where an arm changes it (otherwise the daemon's:
 * high on the cleaned path, low on the double-talk path).
 * BARGE_IN_REPLAY_PATHS=a,b replays only those.
 */
interface PathArm {
  meter: () => EchoExcessMeter | undefined;
  cleanedSuppression?: ApmLevel;
  doubleTalkSuppression?: ApmLevel;
}
const ALL_PATHS: Record<string, PathArm> = {
  whole_band: { meter: () => new DoubleTalkMeter() },
  bands_3rd: { meter: () => new BandDoubleTalkMeter({ rank: 3 }) },
  bands_5th: { meter: () => new BandDoubleTalkMeter({ rank: 5 }) },
  bands_3rd_cancelled: { meter: () => new BandDoubleTalkMeter({ rank: 3, bandsFrom: 'cancelled' }) },
  bands_3rd_cleaned_moderate: { meter: () => new BandDoubleTalkMeter({ rank: 3 }), cleanedSuppression: 'moderate' },
  bands_3rd_double_talk_moderate: { meter: () => new BandDoubleTalkMeter({ rank: 3 }), doubleTalkSuppression: 'moderate' },
};
const PATHS: Record<string, PathArm> = process.env.BARGE_IN_REPLAY_PATHS
  ? Object.fromEntries(process.env.BARGE_IN_REPLAY_PATHS.split(',').map((name) => [name, ALL_PATHS[name] ?? unknownPath(name)]))
  : ALL_PATHS;

function unknownPath(name: string): never {
  throw new Error(`BARGE_IN_REPLAY_PATHS: no path arm "${name}" (known: ${Object.keys(ALL_PATHS).join(', ')})`);
}
const CANCELLERS = replayCancellers(process.env.BARGE_IN_REPLAY_CANCELLERS);

/** The rule settings tried on each meter's windows (over the daemon's defaults): BARGE_IN_REPLAY_GRID=1 for the whole grid. */
const RULES: Record<string, Partial<DuplexConfig>> =
  process.env.BARGE_IN_REPLAY_GRID === '1'
    ? grid()
    : {
        as_shipped: {},
        no_reply_guard: { replyStartGuardMs: 0 },
        excess_15: { echoExcessDb: 15 },
        excess_18: { echoExcessDb: 18 },
        excess_24: { echoExcessDb: 24 },
        one_window_32ms: { doubleTalkMinSpeechMs: 32 },
        guard_after_1s: { replyPauseMs: 1000 },
        guard_after_2s: { replyPauseMs: 2000 },
        one_window_32ms_guard_after_2s: { doubleTalkMinSpeechMs: 32, replyPauseMs: 2000 },
      };

function grid(): Record<string, Partial<DuplexConfig>> {
  const rules: Record<string, Partial<DuplexConfig>> = {};
  for (const echoExcessDb of [6, 9, 12, 15, 18])
    for (const doubleTalkThreshold of [0.5, 0.7])
      for (const doubleTalkMinSpeechMs of [32, 64, 96])
        for (const doubleTalkExcessWindows of [1, 2, 3])
          for (const replyStartGuardMs of [0, 300, 500, 800])
            rules[`x${echoExcessDb}_p${doubleTalkThreshold}_m${doubleTalkMinSpeechMs}_w${doubleTalkExcessWindows}_g${replyStartGuardMs}`] = { echoExcessDb, doubleTalkThreshold, doubleTalkMinSpeechMs, doubleTalkExcessWindows, replyStartGuardMs };
  return rules;
}

/** A detection may come this long before the clip's measured onset (its first breath is quieter than the onset rule). */
const EARLY_MS = 150;

export const bargeInReplay: Benchmark = {
  name: 'barge-in-replay',
  description: 'a recorded barge-in run (BARGE_IN_RECORD) replayed through other double-talk meters and settings: false onsets, detections, onset-to-confirm latency',
  run: runReplay,
};

interface ScoredWindow {
  /** Capture clock, ms. */
  atMs: number;
  startMs: number;
  probability: number;
  playing: boolean;
  doubleTalk: DoubleTalkWindow | undefined;
}

async function runReplay(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const folder = process.env.BARGE_IN_REPLAY;
  if (!folder) return { skipped: 'BARGE_IN_REPLAY names no folder (record one with BARGE_IN_RECORD=folder npm run bench -- barge-in)' };
  const rooms = await recordedRoomNames(folder);
  const figures: Figures = {};
  for (const room of rooms) {
    const { recording, mic, render } = await readRecordedRoom(folder, room);
    for (const canceller of CANCELLERS) {
      for (const [meterName, path] of Object.entries(PATHS)) {
        options.signal?.throwIfAborted();
        const windows = await scoreWindows(recording, mic, render, path, canceller);
        for (const [ruleName, rule] of Object.entries(RULES)) {
          const arm = `${room}.via_${canceller}.${meterName}.${ruleName}`;
          const result = judge(recording, windows, { ...DUPLEX_DEFAULTS, ...rule }, process.env.BARGE_IN_REPLAY_DEBUG === arm);
          process.stderr.write(`  ${arm}: ${JSON.stringify(result)}\n`);
          for (const [key, value] of Object.entries(result)) figures[`${arm}.${key}`] = value;
        }
      }
    }
  }
  return figures;
}

/** Every frame through the detector's two paths, as live; the windows' scores on the capture clock. */
async function scoreWindows(recording: RunRecordingFile, mic: Int16Array, render: Int16Array, path: PathArm, canceller: EchoCanceller): Promise<ScoredWindow[]> {
  const config = defaultConfig();
  // AEC3 has no suppression levels: its two paths differ only in gain control (createApm).
  const apm = createApm(canceller, { ...apmOptionsFromConfig(config), ...(path.cleanedSuppression ? { echoSuppression: path.cleanedSuppression } : {}) });
  const secondApm = createApm(canceller, { ...apmOptionsFromConfig(config), echoSuppression: path.doubleTalkSuppression ?? 'low', gainControl: false });
  const meter = path.meter();
  const vad = await SileroVad.load();
  const secondVad = await SileroVad.load();
  try {
    const detector = new BargeInDetector({ apm, vad, config: DUPLEX_DEFAULTS, doubleTalk: { apm: secondApm, vad: secondVad, ...(meter ? { meter } : {}) } });
    const n = recording.frameSamples;
    const frameMs = (n / recording.rate) * 1000;
    const windows: ScoredWindow[] = [];
    for (let f = 0; f < recording.frames.length; f++) {
      const [, playing] = recording.frames[f]!;
      const result = await detector.process(mic.subarray(f * n, (f + 1) * n), playing ? render.subarray(f * n, (f + 1) * n) : null);
      for (const w of result.windows) {
        const frame = Math.min(recording.frames.length - 1, Math.floor(w.startMs / frameMs));
        const atMs = recording.frames[frame]![0] + (w.startMs - frame * frameMs);
        windows.push({ atMs, startMs: w.startMs, probability: w.probability, playing: result.playing, doubleTalk: w.doubleTalk });
      }
    }
    return windows;
  } finally {
    apm.close();
    secondApm.close();
    await vad.close();
    await secondVad.close();
  }
}

/** The rule over the windows; each trial judged as the live bench judges it. */
function judge(recording: RunRecordingFile, windows: ScoredWindow[], config: DuplexConfig, debug = false): Figures {
  const rule = new BargeInRule(config, 32);
  const onsets: Array<{ atMs: number; duringPlayback: boolean; index: number }> = [];
  windows.forEach((w, index) => {
    const event = rule.score(w.startMs, w.probability, w.playing, w.doubleTalk);
    if (event) onsets.push({ atMs: w.atMs + (event.atMs - w.startMs), duringPlayback: event.duringPlayback, index });
  });
  const within = (t: RecordedTrial, from: number, to: number) => onsets.filter((o) => o.atMs >= from && o.atMs < to && o.atMs >= t.fromMs && o.atMs < t.toMs);
  let falseEcho = 0;
  let echoTrialsWithFalse = 0;
  let spoiled = 0;
  let afterLiveStop = 0;
  let eligible = 0;
  const latencies: number[] = [];
  for (const trial of recording.trials) {
    if (trial.kind === 'echo_only') {
      const falseOnes = within(trial, trial.fromMs, trial.toMs).filter((o) => o.duringPlayback);
      // BARGE_IN_REPLAY_DEBUG=<arm>: each false onset with the windows that led to it.
      if (debug) for (const o of falseOnes) process.stderr.write(`    false at +${Math.round(o.atMs - trial.fromMs)} ms: ${describeWindows(windows, o.index)}\n`);
      const found = falseOnes.length;
      falseEcho += found;
      if (found > 0) echoTrialsWithFalse++;
    } else if (trial.kind === 'talk_over' && trial.onsetMs !== undefined) {
      const before = within(trial, trial.fromMs, trial.onsetMs - EARLY_MS).filter((o) => o.duringPlayback);
      if (debug) for (const o of before) process.stderr.write(`    spoiling at +${Math.round(o.atMs - trial.fromMs)} ms: ${describeWindows(windows, o.index)}\n`);
      if (before.length > 0) {
        spoiled++;
        continue;
      }
      eligible++;
      const hit = within(trial, trial.onsetMs - EARLY_MS, trial.toMs)[0];
      if (!hit) continue;
      const latency = hit.atMs - trial.onsetMs;
      latencies.push(latency);
      const live = trial.live?.latencyMs;
      if (typeof live === 'number' && latency > live) afterLiveStop++;
    }
  }
  const pick = (p: number) => (latencies.length > 0 ? round(percentile(latencies, p), 1) : Number.NaN);
  return {
    false_echo_only: falseEcho,
    echo_trials_with_false: echoTrialsWithFalse,
    spoiled,
    detected: `${latencies.length}/${eligible}`,
    latency_p50_ms: pick(50),
    latency_p95_ms: pick(95),
    latency_max_ms: pick(100),
    after_live_stop: afterLiveStop,
  };
}

/** The windows up to an onset: [cleaned probability, double-talk probability, excess dB]. */
function describeWindows(windows: ScoredWindow[], index: number): string {
  return windows
    .slice(Math.max(0, index - 6), index + 1)
    .map((w) => `[${w.probability.toFixed(2)} ${w.doubleTalk?.probability.toFixed(2)} ${w.doubleTalk?.excessDb.toFixed(1)}${w.playing ? '' : ' idle'}]`)
    .join(' ');
}
