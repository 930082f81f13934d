/**
 * Cut-off turns on the pause set (test/support/pause-set.ts): real recorded
 * questions with a thinking pause of 500 or 800 ms of their own noise floor
 * between two words (40 clips), and the ten clips whole, each followed by
 * 1.5 s of its noise floor, played through the real Silero endpointer and
 * the real resident pocketsphinx decoder wired as the voice wires them in
 * turn-based mode (`VoiceSession.listenOnce`: recognition fed while the
 * user speaks, the decoder's sentence check on the endpointer), once per
 * end-of-turn arm:
 *
 * - `fixed_500`: `[vad] silence_ms = 500`, `sentence_end_silence_ms = 0`, `unfinished_silence_ms = 0` (the old rule);
 * - `defaults`: the config schema's defaults at the time of the run;
 * - `sentence_end_250`: the defaults with `[vad] sentence_end_silence_ms = 250`.
 *
 * Each arm is built from a parsed Config through `detectorFromConfig` and
 * `sttFromConfig`, as the daemon builds them, so a change of the rule or of
 * its defaults is what is measured. Audio goes in as fast as it decodes:
 * every 20 ms frame waits until the decoder has taken the one before, as it
 * would have at real-time pace; all times are audio time.
 *
 * A turn is cut off when it ends (the frame on which the endpointer ends the
 * recording) before the end of speech in the audio; `cut_in_pause` counts
 * those that ended within the pause (or the 300 ms after it, before the VAD
 * hears the next word). For the whole clips, and the paused ones not cut,
 * the end-of-turn delay: from the end of speech to the end, audio ms.
 * PAUSES_ARMS (JSON: [{"name": ..., "vad": {...}}]) adds arms.
 * PAUSES_LIMIT=N plays only the first N whole and N paused clips (a quick look).
 */
import { validateConfig, type Config } from '../src/config/index.js';
import { detectorFromConfig, sttFromConfig } from '../src/voice/engines.js';
import type { StreamingStt } from '../src/voice/types.js';
import { listenToClip } from '../test/support/pause-turn.js';
import { loadPauseSet, withTrailingFloor, type PauseClip } from '../test/support/pause-set.js';
import { distribution, round } from '../test/support/stats.js';
import { wordErrors } from '../test/support/wer.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';

const RATE = 16_000;
const FRAME = 320;
const TRAILING_FLOOR_MS = 1500;
/** A turn that ends this soon after the pause still ended in it: the next word has not been heard yet. */
const AFTER_PAUSE_MS = 300;
const LIMIT = Number(process.env.PAUSES_LIMIT ?? Number.POSITIVE_INFINITY);

/** The arms: config tables over the defaults, each with the resident decoder. */
const STT = { engine: 'pocketsphinx' };
const ARMS: { name: string; raw: Record<string, unknown> }[] = [
  { name: 'fixed_500', raw: { stt: STT, vad: { silence_ms: 500, sentence_end_silence_ms: 0, unfinished_silence_ms: 0 } } },
  { name: 'defaults', raw: { stt: STT } },
  { name: 'sentence_end_250', raw: { stt: STT, vad: { sentence_end_silence_ms: 250 } } },
  // PAUSES_ARMS='[{"name":"x","vad":{...}}]': more arms to compare (their tables over the defaults).
  ...(JSON.parse(process.env.PAUSES_ARMS ?? '[]') as { name: string; vad?: object; turn?: object }[]).map(({ name, ...tables }) => ({ name, raw: { stt: STT, ...tables } })),
];

export const pauses: Benchmark = {
  name: 'pauses',
  description: 'cut-off turns on real questions with a 500/800 ms thinking pause (40 clips) and end-of-turn delay on the 10 whole clips, real VAD and resident pocketsphinx, per end-of-turn rule',
  run: runPauses,
};

interface Arm {
  name: string;
  config: Config;
  stt: StreamingStt;
  detector: Awaited<ReturnType<typeof detectorFromConfig>>;
}

interface Trial {
  arm: string;
  clip: PauseClip;
  /** The sample at which the recording ended (the end of the frame that ended it); undefined: no speech heard. */
  endedAt?: number;
  endRule?: string;
  transcript?: string;
}

async function runPauses(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const set = await loadPauseSet();
  const clips = [...set.whole.slice(0, LIMIT), ...set.paused.slice(0, LIMIT)];
  const figures: Figures = { whole_clips: Math.min(LIMIT, set.whole.length), paused_clips: Math.min(LIMIT, set.paused.length), trailing_floor_ms: TRAILING_FLOOR_MS };
  const arms: Arm[] = [];
  try {
    for (const { name, raw } of ARMS) {
      const parsed = validateConfig(raw);
      if (!parsed.ok) {
        figures[`${name}_skipped`] = parsed.errors.join('; ');
        continue;
      }
      const { config } = parsed;
      arms.push({ name, config, stt: await sttFromConfig(config), detector: await detectorFromConfig(config) });
    }
    const trials: Trial[] = [];
    // Arms interleaved clip by clip: each decoder's live normalisation sees the same clips in the same order.
    for (const clip of clips) {
      for (const arm of arms) {
        options.signal?.throwIfAborted();
        const trial = await play(arm, clip, options.signal);
        trials.push(trial);
        const end = trial.endedAt === undefined ? 'no speech' : `ended ${Math.round(((trial.endedAt - clip.endOfSpeechSample) * 1000) / RATE)} ms after the end of speech (${trial.endRule})`;
        process.stderr.write(`pauses ${clip.name} ${arm.name}: ${end}${isCut(trial) ? ` CUT: "${trial.transcript ?? ''}"` : ''}\n`);
      }
    }
    for (const arm of arms) Object.assign(figures, armFigures(arm, trials.filter((t) => t.arm === arm.name)));
  } finally {
    await Promise.allSettled(arms.flatMap((a) => [a.stt.close(), a.detector.close()]));
  }
  return figures;
}

/** One clip through one arm, as `listenOnce` hears it in turn-based mode. */
async function play(arm: Arm, clip: PauseClip, signal: AbortSignal | undefined): Promise<Trial> {
  const heard = await listenToClip({ ...arm, samples: withTrailingFloor(clip, TRAILING_FLOOR_MS), signal });
  return { arm: arm.name, clip, ...heard };
}

function isCut(trial: Trial): boolean {
  return trial.endedAt !== undefined && trial.endedAt < trial.clip.endOfSpeechSample;
}

function armFigures(arm: Arm, trials: readonly Trial[]): Figures {
  const p = arm.name;
  const whole = trials.filter((t) => !t.clip.pause);
  const paused = trials.filter((t) => t.clip.pause);
  const inPause = (t: Trial): boolean => {
    const pause = t.clip.pause!;
    return t.endedAt! >= pause.startSample && t.endedAt! <= pause.endSample + (AFTER_PAUSE_MS * RATE) / 1000;
  };
  const delays = (list: readonly Trial[]): number[] => list.filter((t) => t.endedAt !== undefined && !isCut(t)).map((t) => ((t.endedAt! - t.clip.endOfSpeechSample) * 1000) / RATE);
  const cut = paused.filter(isCut);
  const figures: Figures = {
    [`${p}_silence_ms`]: arm.config.vad.silence_ms,
    [`${p}_sentence_end_silence_ms`]: arm.config.vad.sentence_end_silence_ms,
    [`${p}_paused_cut`]: cut.length,
    [`${p}_paused_cut_in_pause`]: cut.filter(inPause).length,
    [`${p}_paused_cut_500`]: cut.filter((t) => t.clip.pause!.ms === 500).length,
    [`${p}_paused_cut_800`]: cut.filter((t) => t.clip.pause!.ms === 800).length,
    [`${p}_paused_cut_clips`]: cut.map((t) => t.clip.name).join('; '),
    [`${p}_whole_cut`]: whole.filter(isCut).length,
    [`${p}_whole_cut_clips`]: whole.filter(isCut).map((t) => t.clip.name).join('; '),
    [`${p}_no_speech`]: trials.filter((t) => t.endedAt === undefined).length,
    ...dist(`${p}_whole_end_delay`, delays(whole)),
    ...dist(`${p}_paused_end_delay`, delays(paused)),
  };
  for (const rule of ['complete', 'silence', 'stopped']) figures[`${p}_end_rule_${rule}`] = trials.filter((t) => t.endRule === rule).length;
  figures[`${p}_whole_word_error_rate`] = errorRate(whole);
  figures[`${p}_paused_not_cut_word_error_rate`] = errorRate(paused.filter((t) => !isCut(t)));
  return figures;
}

/** Word errors of the turns' final transcripts against the clips' references (the pause adds no word), over the turns given. */
function errorRate(trials: readonly Trial[]): number {
  let errors = 0;
  let words = 0;
  for (const t of trials) {
    if (t.clip.reference === undefined) continue;
    const counted = wordErrors(t.clip.reference, t.transcript ?? '');
    errors += counted.errors;
    words += counted.referenceWords;
  }
  return words === 0 ? Number.NaN : round(errors / words, 3);
}

function dist(name: string, samples: readonly number[]): Figures {
  if (samples.length > 0) return distribution(name, samples);
  return { [`${name}_p50_ms`]: Number.NaN, [`${name}_p95_ms`]: Number.NaN };
}
