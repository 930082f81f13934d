/**
 * The interrupting words of a recorded barge-in run (bench/barge-in.ts with
 * BARGE_IN_RECORD=folder) recognized again offline, from other audio and
 * other starts, to find what the word error rate over echo is made of.
 * Every frame goes through the daemon's detector (its echo cancellers, its
 * Silero states, its rule) as live; where it confirmed speech in a
 * talked-over reply (or in a clip said to the idle assistant: the no-echo
 * baseline), a span of audio from the confirming run's start less a
 * pre-roll to 0.5 s after the clip's end is recognized by the resident
 * decoder, once per arm:
 *
 *   source    'cleaned' (the strongly suppressed path recognition hears
 *             live) or 'low' (the double-talk path's less suppressed
 *             canceller, same settings)
 *   preroll   how far before the confirming run recognition starts (live: 300 ms)
 *
 * Printed per room and arm: the word error rate of the interrupting clips
 * and of the same clips said to the idle assistant, and the gap. One
 * recognition per span, where live the endpointer may cut a clip into two
 * utterances, so the figures approximate the live ones; the arms are
 * compared with each other.
 *
 * Each recorded room (`<room>.<canceller that ran live>`) is replayed
 * through each echo canceller in BARGE_IN_REPLAY_CANCELLERS (default
 * legacy,aec3): figures keyed `<room>.<live canceller>.via_<canceller>.<arm>`.
 * AEC3 has no suppression levels, so its 'low' source is its cleaned one
 * without gain control.
 *
 *   BARGE_IN_REPLAY=/tmp/rec npm run bench -- barge-in-replay-words
 */
import { defaultConfig } from '../src/config/index.js';
import { createApm, type EchoCanceller } from '../src/voice/apm/index.js';
import { BargeInDetector, DUPLEX_DEFAULTS } from '../src/voice/duplex/index.js';
import { sttFromConfig } from '../src/voice/engines.js';
import { apmOptionsFromConfig } from '../src/voice/live-duplex.js';
import type { StreamingStt } from '../src/voice/types.js';
import { SileroVad } from '../src/voice/vad/index.js';
import { wordErrors } from '../test/support/wer.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { replayCancellers } from './lib/barge-in-replay-cancellers.js';
import { readRecordedRoom, recordedRoomNames, type RunRecordingFile } from './lib/run-recording.js';
import { cardsClips, librivoxClips, type SpeechClip } from '../test/support/speech-clips.js';
import { round } from '../test/support/stats.js';

type Source = 'cleaned' | 'low';
interface WordsArm {
  source: Source;
  preRollMs: number;
}
const ARMS: Record<string, WordsArm> = {
  cleaned_300ms: { source: 'cleaned', preRollMs: 300 },
  cleaned_600ms: { source: 'cleaned', preRollMs: 600 },
  cleaned_1000ms: { source: 'cleaned', preRollMs: 1000 },
  low_300ms: { source: 'low', preRollMs: 300 },
  low_600ms: { source: 'low', preRollMs: 600 },
};
const CANCELLERS = replayCancellers(process.env.BARGE_IN_REPLAY_CANCELLERS);
/** A detection may come this long before the clip's measured onset (as in bench/barge-in-replay.ts). */
const EARLY_MS = 150;
/** Recognized after the clip's end (from its onset where measured, else from the confirming run's start). */
const SPAN_AFTER_CLIP_MS = 500;

export const bargeInReplayWords: Benchmark = {
  name: 'barge-in-replay-words',
  description: 'the interrupting words of a recorded barge-in run (BARGE_IN_RECORD) recognized again from other audio and starts: word error rates over echo and without',
  run: runWordsReplay,
};

/** What the detector made of a recorded room: both cancellers' output and its onsets, in samples. */
interface ReplayedRoom {
  audio: Record<Source, Int16Array>;
  /** Each onset: the sample where its confirming run started, and the capture time of its frame. */
  onsets: Array<{ runStartSample: number; atMs: number }>;
}

async function runWordsReplay(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const folder = process.env.BARGE_IN_REPLAY;
  if (!folder) return { skipped: 'BARGE_IN_REPLAY names no folder (record one with BARGE_IN_RECORD=folder npm run bench -- barge-in)' };
  const rooms = await recordedRoomNames(folder);
  const clips = new Map([...(await librivoxClips()), ...(await cardsClips())].map((c) => [c.name, c]));
  const stt = await sttFromConfig(defaultConfig(), 'full_duplex_agent');
  const figures: Figures = {};
  try {
    for (const room of rooms) {
      options.signal?.throwIfAborted();
      const { recording, mic, render } = await readRecordedRoom(folder, room);
      for (const canceller of CANCELLERS) {
        const replayed = await replayRoom(recording, mic, render, canceller);
        for (const [armName, arm] of Object.entries(ARMS)) {
          options.signal?.throwIfAborted();
          const result = await recognizeArm(stt, recording, replayed, arm, clips);
          const key = `${room}.via_${canceller}.${armName}`;
          process.stderr.write(`  ${key}: ${JSON.stringify(result)}\n`);
          for (const [name, value] of Object.entries(result)) figures[`${key}.${name}`] = value;
        }
      }
    }
  } finally {
    await stt.close();
  }
  return figures;
}

async function replayRoom(recording: RunRecordingFile, mic: Int16Array, render: Int16Array, canceller: EchoCanceller): Promise<ReplayedRoom> {
  const config = defaultConfig();
  const apm = createApm(canceller, apmOptionsFromConfig(config));
  const secondApm = createApm(canceller, { ...apmOptionsFromConfig(config), echoSuppression: 'low', gainControl: false });
  // The double-talk path's canceller, again: same settings, same input, so the same output.
  const lowApm = createApm(canceller, { ...apmOptionsFromConfig(config), echoSuppression: 'low', gainControl: false });
  const vad = await SileroVad.load();
  const secondVad = await SileroVad.load();
  try {
    const detector = new BargeInDetector({ apm, vad, config: DUPLEX_DEFAULTS, doubleTalk: { apm: secondApm, vad: secondVad } });
    const n = recording.frameSamples;
    const cleaned = new Int16Array(mic.length);
    const low = new Int16Array(mic.length);
    const silence = new Int16Array(lowApm.frameSamples);
    const onsets: ReplayedRoom['onsets'] = [];
    for (let f = 0; f < recording.frames.length; f++) {
      const [atMs, playing] = recording.frames[f]!;
      const micFrame = mic.subarray(f * n, (f + 1) * n);
      const renderFrame = playing ? render.subarray(f * n, (f + 1) * n) : null;
      const result = await detector.process(micFrame, renderFrame);
      cleaned.set(result.cleaned, f * n);
      for (let o = 0; o < n; o += lowApm.frameSamples) {
        lowApm.processRender(renderFrame ? renderFrame.subarray(o, o + lowApm.frameSamples) : silence);
        low.set(lowApm.processCapture(micFrame.subarray(o, o + lowApm.frameSamples)), f * n + o);
      }
      if (result.event) onsets.push({ runStartSample: Math.round((result.event.startedAtMs / 1000) * recording.rate), atMs });
    }
    return { audio: { cleaned, low }, onsets };
  } finally {
    apm.close();
    secondApm.close();
    lowApm.close();
    await vad.close();
    await secondVad.close();
  }
}

async function recognizeArm(stt: StreamingStt, recording: RunRecordingFile, room: ReplayedRoom, arm: WordsArm, clips: Map<string, SpeechClip>): Promise<Figures> {
  const totals = { baseline: { errors: 0, words: 0, clips: 0 }, talk_over: { errors: 0, words: 0, clips: 0 } };
  for (const trial of recording.trials) {
    if ((trial.kind !== 'baseline' && trial.kind !== 'talk_over') || !trial.clip) continue;
    const clip = clips.get(trial.clip);
    if (clip === undefined) continue;
    const from = trial.kind === 'talk_over' ? (trial.onsetMs ?? Infinity) - EARLY_MS : trial.fromMs;
    const onset = room.onsets.find((o) => o.atMs >= from && o.atMs >= trial.fromMs && o.atMs < trial.toMs);
    // Not detected: live, nothing was recognized either (the detection figures count those).
    if (!onset) continue;
    const start = Math.max(0, onset.runStartSample - Math.round((arm.preRollMs / 1000) * recording.rate));
    const clipStart = trial.kind === 'talk_over' && trial.onsetMs !== undefined ? sampleAt(recording, trial.onsetMs) : onset.runStartSample;
    const end = Math.min(room.audio[arm.source].length, clipStart + clip.samples.length + Math.round((SPAN_AFTER_CLIP_MS / 1000) * recording.rate));
    const heard = await recognize(stt, room.audio[arm.source].subarray(start, end));
    const errors = wordErrors(clip.transcript, heard);
    const total = totals[trial.kind];
    total.errors += errors.errors;
    total.words += errors.referenceWords;
    total.clips++;
  }
  // NaN where no clip of the kind was detected: nothing was recognized to score.
  const rate = (t: { errors: number; words: number }) => (t.words > 0 ? round(t.errors / t.words, 3) : Number.NaN);
  return {
    wer_interrupting: rate(totals.talk_over),
    wer_no_echo_baseline: rate(totals.baseline),
    gap: round(rate(totals.talk_over) - rate(totals.baseline), 3),
    clips_interrupting: totals.talk_over.clips,
    clips_baseline: totals.baseline.clips,
  };
}

/** The recording's sample captured at `atMs` (capture clock): in the first frame stamped at or after it. */
function sampleAt(recording: RunRecordingFile, atMs: number): number {
  let low = 0;
  let high = recording.frames.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (recording.frames[mid]![0] < atMs) low = mid + 1;
    else high = mid;
  }
  return low * recording.frameSamples;
}

/** One utterance through the decoder, in 20 ms frames as live. */
async function recognize(stt: StreamingStt, samples: Int16Array): Promise<string> {
  const recognition = stt.startUtterance();
  for (let i = 0; i < samples.length; i += 320) recognition.push(samples.slice(i, i + 320));
  return (await recognition.finish()).text;
}
