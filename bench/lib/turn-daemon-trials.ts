/**
 * What bench/turn-daemon.ts makes of its recordings and the daemon's events:
 * per question the end of speech, the first sound of the answer and where
 * the daemon's own events fall between them; per engine and mode the figures.
 */
import type { AssistantEvent } from '../../src/events/index.js';
import type { Figures } from './benchmark.js';
import type { ReceivedEvent } from './daemon-process.js';
import { lastVoicedFrame, type RoomRecorder } from './room.js';
import { distribution, percentile, round } from '../../test/support/stats.js';

/** A question's loudest 10 ms frame below this (about -40 dBFS) means it never reached the microphone's channel. */
export const QUESTION_MIN_RMS = 300;
/** The answer has begun at the first 10 ms frame of the speaker channel at or above this: -50 dBFS, where a null sink's silence is exact zeros. */
export const ANSWER_RMS = 100;

/** One question as played: frames on the room's recording, events by index in the daemon's list. */
export interface Trial {
  clip: string;
  /** Recording frame when the question started playing, and when pacat had drained it. */
  fromFrame: number;
  playedFrame: number;
  /** The first frame of the answer, if one came. */
  soundFrame?: number;
  fromEvent: number;
  /** Set once the next question of the same daemon starts (or the daemon stops). */
  toEvent?: number;
  /** Why there was no answer, when there was none. */
  why?: string;
}

export interface Measured {
  /** The end of the question's last voiced 10 ms frame, ms on the room's clock. */
  endOfSpeechMs?: number;
  /** End of speech to the first sound of the answer; negative when the daemon answered before the question ended. */
  latencyMs?: number;
  /** The daemon's events, ms after the end of speech (placed on the room's clock through the wall clock, to about 10 ms). */
  vadEndMs?: number;
  transcriptMs?: number;
  turnMs?: number;
  llmSentenceMs?: number;
  playbackMs?: number;
}

export function measure(trial: Trial, recorder: RoomRecorder, events: readonly ReceivedEvent[]): Measured {
  // The microphone's channel holds only this question: nothing else plays into it.
  const last = lastVoicedFrame(recorder.mic, trial.fromFrame, trial.playedFrame + 100, QUESTION_MIN_RMS);
  if (last === undefined) return {};
  const endOfSpeechMs = (last + 1) * 10;
  const mine = events.slice(trial.fromEvent, trial.toEvent);
  const after = (e: ReceivedEvent | undefined): number | undefined => (e === undefined ? undefined : recorder.frameAtWall(e.atMs) * 10 - endOfSpeechMs);
  const measured: Measured = {
    endOfSpeechMs,
    vadEndMs: after(mine.find((e) => e.type === 'voice.speech' && e.phase === 'end')),
    transcriptMs: after(mine.find((e) => e.type === 'voice.transcript' && e.final)),
    turnMs: after(mine.find((e) => e.type === 'turn.started')),
    llmSentenceMs: after(mine.find((e) => e.type === 'llm.sentence')),
    playbackMs: after(mine.find((e) => e.type === 'voice.playback' && e.phase === 'started')),
  };
  if (trial.soundFrame !== undefined) measured.latencyMs = trial.soundFrame * 10 - endOfSpeechMs;
  return measured;
}

/** Why a question got no answer, from what the daemon said meanwhile. */
export function noAnswerReason(events: readonly ReceivedEvent[]): string {
  const dropped = events.find((e) => e.type === 'voice.transcript' && e.final && e.dropped !== undefined);
  if (dropped?.type === 'voice.transcript') return `transcript dropped (${dropped.dropped})`;
  const error = events.find((e) => e.type === 'error');
  if (error?.type === 'error') return `error ${error.code}`;
  if (!events.some((e) => e.type === 'voice.speech' && e.phase === 'end')) return 'no end of speech';
  if (!events.some((e) => e.type === 'turn.started')) return 'no turn';
  return 'no sound';
}

/** `<prefix>_...` figures of one engine in one mode. */
export function trialFigures(prefix: string, trials: readonly Trial[], measured: readonly Measured[], events: readonly ReceivedEvent[]): Figures {
  const answered = measured.filter((m) => m.latencyMs !== undefined);
  const inTime = answered.filter((m) => m.latencyMs! >= 0);
  const latencies = inTime.map((m) => m.latencyMs!);
  const pick = (key: 'vadEndMs' | 'transcriptMs' | 'turnMs' | 'llmSentenceMs' | 'playbackMs'): number[] => inTime.map((m) => m[key]).filter((v): v is number => v !== undefined);
  const outPath = inTime.filter((m) => m.playbackMs !== undefined).map((m) => m.latencyMs! - m.playbackMs!);
  const lags = events.map((e) => e.receivedAtMs - e.atMs);
  const reasons = new Map<string, number>();
  for (const t of trials) if (t.why) reasons.set(t.why, (reasons.get(t.why) ?? 0) + 1);
  return {
    [`${prefix}_questions`]: trials.length,
    [`${prefix}_answered`]: inTime.length,
    [`${prefix}_no_answer`]: trials.length - answered.length,
    [`${prefix}_no_answer_reasons`]: [...reasons].map(([why, n]) => `${n} x ${why}`).join('; '),
    [`${prefix}_answered_before_end_of_speech`]: answered.length - inTime.length,
    [`${prefix}_question_end_not_found`]: measured.filter((m) => m.endOfSpeechMs === undefined).length,
    ...dist(`${prefix}_end_of_speech_to_answer`, latencies),
    [`${prefix}_end_of_speech_to_answer_max_ms`]: latencies.length > 0 ? round(Math.max(...latencies)) : Number.NaN,
    ...dist(`${prefix}_vad_end_event_after_speech`, pick('vadEndMs')),
    ...dist(`${prefix}_transcript_event_after_speech`, pick('transcriptMs')),
    ...dist(`${prefix}_turn_started_event_after_speech`, pick('turnMs')),
    ...dist(`${prefix}_llm_sentence_event_after_speech`, pick('llmSentenceMs')),
    ...dist(`${prefix}_playback_event_after_speech`, pick('playbackMs')),
    ...dist(`${prefix}_playback_event_to_sound`, outPath),
    [`${prefix}_event_delivery_lag_p95_ms`]: lags.length > 0 ? round(percentile(lags, 95)) : Number.NaN,
    [`${prefix}_event_delivery_lag_max_ms`]: lags.length > 0 ? round(Math.max(...lags)) : Number.NaN,
  };
}

/** The `voice.speech` end event's `endRule` values, each counted (0 when none fired) so every slot has the same keys. */
const END_RULES = ['complete', 'silence', 'stopped'] as const;

/**
 * What the daemon said of its turns: which end-of-turn rule fired how often,
 * and preemptive generation (`llm.speculation`): requests sent ahead, used,
 * discarded, the reply pieces the discarded ones had streamed for nothing,
 * and discarded requests per 100 turns (`turn.started`).
 */
export function turnEventFigures(prefix: string, events: readonly AssistantEvent[]): Figures {
  const ends = events.filter((e) => e.type === 'voice.speech' && e.phase === 'end');
  const speculation = events.filter((e) => e.type === 'llm.speculation');
  const phase = (p: string): number => speculation.filter((e) => e.phase === p).length;
  const discarded = phase('discarded');
  const turns = events.filter((e) => e.type === 'turn.started').length;
  const figures: Figures = {};
  for (const rule of END_RULES) figures[`${prefix}_end_rule_${rule}`] = ends.filter((e) => e.type === 'voice.speech' && e.endRule === rule).length;
  figures[`${prefix}_end_rule_unknown`] = ends.filter((e) => e.type === 'voice.speech' && e.endRule === undefined).length;
  // The silence each end waited, as the endpointer counted it (Silero's windows after the last voiced one).
  const silences = ends.flatMap((e) => (e.type === 'voice.speech' && e.silenceMs !== undefined ? [e.silenceMs] : []));
  Object.assign(figures, dist(`${prefix}_end_silence`, silences));
  figures[`${prefix}_end_silences`] = silences.join(' ');
  return {
    ...figures,
    [`${prefix}_turns`]: turns,
    [`${prefix}_speculative_requests`]: phase('started'),
    [`${prefix}_speculation_used`]: phase('used'),
    [`${prefix}_speculation_discarded`]: discarded,
    [`${prefix}_speculation_wasted_pieces`]: speculation.reduce((sum, e) => sum + (e.type === 'llm.speculation' ? (e.wastedPieces ?? 0) : 0), 0),
    [`${prefix}_wasted_requests_per_100_turns`]: turns > 0 ? round((discarded * 100) / turns, 1) : Number.NaN,
  };
}

/** distribution(), or NaN figures (null in the JSON) where nothing was measured, so every engine has the same keys. */
function dist(name: string, samples: readonly number[]): Figures {
  if (samples.length > 0) return distribution(name, samples);
  return { [`${name}_p50_ms`]: Number.NaN, [`${name}_p95_ms`]: Number.NaN };
}
