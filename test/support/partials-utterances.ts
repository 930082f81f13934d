/**
 * The pure half of bench/partials.ts: the utterances it plays (a clip cut to
 * what the endpointer would hand over) and the figures from the trials.
 */
import { voicedOnset } from './echo-scenes.js';
import { distribution } from './stats.js';

const RATE = 16_000;
const FRAME = 320;
const TEN_MS = 160;

const samplesOf = (ms: number): number => Math.round((ms * RATE) / 1000);
const msOf = (samples: number): number => (samples * 1000) / RATE;

/**
 * Sample index just after the last voiced audio: the last 10 ms frame within
 * 20 dB of the clip's loudest that ends a stretch where 3 of 5 frames are,
 * the mirror of `voicedOnset` (so a lone click in the tail is not speech).
 */
export function voicedEnd(samples: Int16Array): number {
  const rms: number[] = [];
  for (let s = 0; s + TEN_MS <= samples.length; s += TEN_MS) {
    let sum = 0;
    for (let i = s; i < s + TEN_MS; i++) sum += samples[i]! * samples[i]!;
    rms.push(Math.sqrt(sum / TEN_MS));
  }
  const limit = Math.max(...rms) / 10;
  const loud = (f: number) => f >= 0 && rms[f]! >= limit;
  for (let f = rms.length - 1; f >= 0; f--) {
    if (loud(f) && [0, 1, 2, 3, 4].filter((k) => loud(f - k)).length >= 3) return (f + 1) * TEN_MS;
  }
  return samples.length;
}

export interface Utterance {
  /** Whole 20 ms frames: the prefix, the speech, then silence up to the endpoint. */
  samples: Int16Array;
  /** Where the first voiced audio begins: the prefix length. */
  onsetMs: number;
  /** Just after the last voiced audio. */
  speechEndMs: number;
  /** Where the endpointer calls the end: `speechEndMs` plus its end silence. */
  endpointMs: number;
}

export interface UtteranceOptions {
  /** Audio kept before the onset (the endpointer's prefix padding); zeros where the clip has less. */
  prefixMs: number;
  /** Silence after the last voiced audio before the endpointer ends the utterance. */
  endSilenceMs: number;
  /** Only the clip's first `maxMs` count (long clips are cut, mid-word if need be). */
  maxMs?: number;
}

/**
 * A clip as the voice would capture it: from `prefixMs` before its voiced
 * onset to `endSilenceMs` after its last voiced audio (the clip's own tail
 * while it lasts, then zeros), in whole frames.
 */
export function utteranceFrom(clip: Int16Array, options: UtteranceOptions): Utterance {
  const cut = options.maxMs === undefined ? clip : clip.subarray(0, Math.min(clip.length, samplesOf(options.maxMs)));
  const onset = voicedOnset(cut);
  const end = voicedEnd(cut);
  const prefix = samplesOf(options.prefixMs);
  const start = onset - prefix;
  const endpoint = end + samplesOf(options.endSilenceMs);
  const samples = new Int16Array(Math.ceil((endpoint - start) / FRAME) * FRAME);
  // Past the cut the clip's own audio would be the next words: silence instead.
  const from = Math.max(0, start);
  samples.set(cut.subarray(from, Math.min(cut.length, endpoint)), from - start);
  return { samples, onsetMs: msOf(prefix), speechEndMs: msOf(end - start), endpointMs: msOf(endpoint - start) };
}

/** One utterance played in real time: milliseconds, all from the voiced onset's wall time. */
export interface Trial {
  /** Which engine and setting played it: the figures' name prefix. */
  variant: string;
  /** The first partial with words; absent when none came before the end. */
  firstPartialMs?: number;
  /** The first partial with a non-empty stable prefix; absent when none came. */
  firstStableMs?: number;
  /** The final transcript, from `finish()`. */
  finalMs: number;
  /** The last voiced audio. */
  speechEndMs: number;
  /** When `finish()` was called (the endpoint, as delivered in whole frames). */
  finishCalledMs: number;
}

/**
 * Per variant: p50/p95 of the first partial and the first stable partial
 * after the onset (over the utterances that had one, with how many had
 * none), the first stable text the user could see (the final where no
 * partial was stable), how many of those came within `targetMs`, and the
 * final's delay after the end of speech and after the `finish()` call.
 */
export function partialsFigures(trials: readonly Trial[], targetMs: number): Record<string, number | string> {
  const figures: Record<string, number | string> = {};
  for (const name of new Set(trials.map((t) => t.variant))) {
    const mine = trials.filter((t) => t.variant === name);
    const firstPartial = mine.flatMap((t) => (t.firstPartialMs === undefined ? [] : [t.firstPartialMs]));
    const firstStable = mine.flatMap((t) => (t.firstStableMs === undefined ? [] : [t.firstStableMs]));
    const visible = mine.map((t) => t.firstStableMs ?? t.finalMs);
    Object.assign(
      figures,
      { [`${name}_utterances`]: mine.length },
      spread(`${name}_first_partial_after_onset`, firstPartial),
      { [`${name}_no_partial`]: mine.length - firstPartial.length },
      spread(`${name}_first_stable_after_onset`, firstStable),
      { [`${name}_no_stable_partial`]: mine.length - firstStable.length },
      spread(`${name}_stable_or_final_after_onset`, visible),
      { [`${name}_stable_or_final_within_${targetMs}ms`]: visible.filter((ms) => ms <= targetMs).length },
      spread(`${name}_final_after_speech_end`, mine.map((t) => t.finalMs - t.speechEndMs)),
      spread(`${name}_final_after_finish_call`, mine.map((t) => t.finalMs - t.finishCalledMs)),
    );
  }
  return figures;
}

function spread(name: string, samples: readonly number[]): Record<string, number | string> {
  return samples.length === 0 ? { [`${name}_ms`]: 'none' } : distribution(name, samples);
}
