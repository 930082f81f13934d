/**
 * The pause set (issue 24): real recorded speech with a thinking pause put
 * between two words, to count the turns an end-of-turn rule cuts off. For
 * each clip, quiet points between words in the middle of its speech (not in
 * its first or last 20%), and at each one 500 or 800 ms of the clip's own
 * noise floor inserted (its quietest frames, looped: never digital silence,
 * which no microphone gives and a VAD finds too easy).
 */
import { cardsClips, librivoxClips, type SpeechClip } from './speech-clips.js';

const RATE = 16_000;
/** 20 ms: the frame a quiet point and the noise floor are measured in. */
const FRAME = 320;
/** 10 ms: the step of the quiet-point search and of the voiced span, as bench/lib/room.ts measures it. */
const STEP = 160;
/** The 20 ms frames the noise floor is made of: the clip's quietest 160 ms. */
const FLOOR_FRAMES = 8;
/** Equal-power crossfade between the floor's frames, so its joins do not click. */
const FADE = 80;
/**
 * A quiet point's 60 ms (the frame and 20 ms either side) within this of the floor: a gap between words.
 * 10 dB found 13 points in the ten clips, 15 dB (with BELOW_LOUDEST_DB) 20: the 40 paused clips of the issue; speech
 * itself is 25-45 dB above these clips' floors.
 */
const QUIET_WITHIN_DB = 15;
/** ... and at least this far below the clip's loudest 20 ms: in a noisy recording (LibriVox 0880) 15 dB over the floor can still be a word. */
const BELOW_LOUDEST_DB = 20;
/** Quiet points of one clip at least this far apart: different gaps. */
const MIN_SPACING_MS = 300;
/** The middle of the speech where a pause may go: not the first or last 20%. */
const EDGE_SHARE = 0.2;

export const PAUSE_LENGTHS_MS = [500, 800] as const;

/** One clip of the set: whole, or with a pause. Sample positions count in `samples`. */
export interface PauseClip {
  /** `librivox 0870`, `cards 002`; with the pause: `librivox 0870 +500 ms at 2.14 s`. */
  name: string;
  clip: string;
  samples: Int16Array;
  /** The inserted pause, when there is one: [startSample, endSample). */
  pause?: { startSample: number; endSample: number; ms: number };
  /** The end of the last voiced 10 ms of the speech. */
  endOfSpeechSample: number;
  /** RMS of the clip's noise floor (its quietest frames), the level the pause is made at. */
  floorRms: number;
  /** What is said in it (the pause changes no word), when known. */
  reference?: string;
}

export interface QuietPoint {
  /** Where a pause goes: the middle of the quiet 20 ms frame. */
  sample: number;
  /** RMS of the 60 ms around it. */
  rms: number;
}

export function rmsOf(samples: Int16Array, from = 0, to = samples.length): number {
  if (to <= from) return 0;
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / (to - from));
}

/** [onset, end) of the speech: 10 ms frames within 20 dB of the loudest, 3 of 5 in a row (test/support/echo-scenes.ts voicedOnset, bench/lib/room.ts lastVoicedFrame). */
export function voicedSpan(samples: Int16Array): { startSample: number; endSample: number } {
  const rms: number[] = [];
  for (let s = 0; s + STEP <= samples.length; s += STEP) rms.push(rmsOf(samples, s, s + STEP));
  const limit = Math.max(...rms) / 10;
  const loud = (f: number): boolean => f >= 0 && f < rms.length && rms[f]! >= limit;
  const steady = (f: number, dir: 1 | -1): boolean => loud(f) && [0, 1, 2, 3, 4].filter((k) => loud(f + dir * k)).length >= 3;
  const first = rms.findIndex((_, f) => steady(f, 1));
  let last = rms.length - 1;
  while (last > 0 && !steady(last, -1)) last--;
  return { startSample: Math.max(0, first) * STEP, endSample: (last + 1) * STEP };
}

/** Start samples of the clip's FLOOR_FRAMES quietest 20 ms frames, in time order. */
function floorFrames(samples: Int16Array): number[] {
  const frames: { start: number; rms: number }[] = [];
  for (let s = 0; s + FRAME <= samples.length; s += FRAME) frames.push({ start: s, rms: rmsOf(samples, s, s + FRAME) });
  return frames
    .sort((a, b) => a.rms - b.rms)
    .slice(0, FLOOR_FRAMES)
    .map((f) => f.start)
    .sort((a, b) => a - b);
}

/** RMS of the clip's noise floor: its quietest frames together. */
export function noiseFloorRms(samples: Int16Array): number {
  const starts = floorFrames(samples);
  return Math.sqrt(starts.reduce((sum, s) => sum + rmsOf(samples, s, s + FRAME) ** 2, 0) / starts.length);
}

/**
 * `length` samples of the clip's own noise floor: its quietest 20 ms frames
 * one after another, looped, each joined to the next with a 5 ms
 * equal-power crossfade (uncorrelated noise keeps its level through it).
 */
export function noiseFloor(samples: Int16Array, length: number): Int16Array {
  const frames = floorFrames(samples).map((s) => samples.subarray(s, s + FRAME));
  const out = new Float64Array(length + FRAME);
  let at = 0;
  for (let k = 0; at < length; k++) {
    const frame = frames[k % frames.length]!;
    for (let i = 0; i < FRAME && at + i < out.length; i++) {
      // The first FADE samples overlap the previous frame's last ones.
      const fadeIn = k > 0 && i < FADE ? Math.sin((Math.PI / 2) * ((i + 0.5) / FADE)) : 1;
      const fadeOut = i >= FRAME - FADE ? Math.cos((Math.PI / 2) * ((i - (FRAME - FADE) + 0.5) / FADE)) : 1;
      out[at + i] = out[at + i]! + frame[i]! * fadeIn * fadeOut;
    }
    at += FRAME - FADE;
  }
  return Int16Array.from(out.subarray(0, length), (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

/**
 * Quiet points between words in the middle of the speech (not its first or
 * last 20%): 20 ms frames whose 60 ms around them is within 15 dB of the
 * clip's noise floor and 20 dB below its loudest 20 ms, the quietest first,
 * at least 300 ms apart; at most
 * `max` of them.
 */
export function quietPoints(samples: Int16Array, max: number): QuietPoint[] {
  const { startSample, endSample } = voicedSpan(samples);
  const edge = Math.round((endSample - startSample) * EDGE_SHARE);
  let loudest = 0;
  for (let s = 0; s + FRAME <= samples.length; s += FRAME) loudest = Math.max(loudest, rmsOf(samples, s, s + FRAME));
  const limit = Math.min(noiseFloorRms(samples) * 10 ** (QUIET_WITHIN_DB / 20), loudest * 10 ** (-BELOW_LOUDEST_DB / 20));
  const candidates: QuietPoint[] = [];
  for (let s = startSample + edge; s + FRAME <= endSample - edge; s += STEP) {
    const rms = rmsOf(samples, Math.max(0, s - FRAME), Math.min(samples.length, s + 2 * FRAME));
    if (rms <= limit) candidates.push({ sample: s + FRAME / 2, rms });
  }
  candidates.sort((a, b) => a.rms - b.rms);
  const spacing = (MIN_SPACING_MS * RATE) / 1000;
  const chosen: QuietPoint[] = [];
  for (const c of candidates) {
    if (chosen.length >= max) break;
    if (chosen.every((p) => Math.abs(p.sample - c.sample) >= spacing)) chosen.push(c);
  }
  return chosen.sort((a, b) => a.sample - b.sample);
}

/** The clip with `ms` of its noise floor inserted at `atSample`; the audio before and after is the clip's, unchanged. */
type ClipSource = Pick<SpeechClip, 'name' | 'samples'> & { reference?: string };

export function withPause(clip: ClipSource, atSample: number, ms: number): PauseClip {
  const length = Math.round((ms * RATE) / 1000);
  const samples = new Int16Array(clip.samples.length + length);
  samples.set(clip.samples.subarray(0, atSample));
  samples.set(noiseFloor(clip.samples, length), atSample);
  samples.set(clip.samples.subarray(atSample), atSample + length);
  const whole = wholeClip(clip);
  return {
    name: `${clip.name} +${ms} ms at ${(atSample / RATE).toFixed(2)} s`,
    clip: clip.name,
    samples,
    pause: { startSample: atSample, endSample: atSample + length, ms },
    endOfSpeechSample: whole.endOfSpeechSample + (atSample < whole.endOfSpeechSample ? length : 0),
    floorRms: whole.floorRms,
    ...(clip.reference === undefined ? {} : { reference: clip.reference }),
  };
}

export function wholeClip(clip: ClipSource): PauseClip {
  return {
    name: clip.name,
    clip: clip.name,
    samples: clip.samples,
    endOfSpeechSample: voicedSpan(clip.samples).endSample,
    floorRms: noiseFloorRms(clip.samples),
    ...(clip.reference === undefined ? {} : { reference: clip.reference }),
  };
}

/** The clip followed by `ms` of its own noise floor (a room is never digitally silent after a question). */
export function withTrailingFloor(clip: PauseClip, ms: number): Int16Array {
  const tail = Math.round((ms * RATE) / 1000);
  const out = new Int16Array(clip.samples.length + tail);
  out.set(clip.samples);
  out.set(noiseFloor(clip.samples, tail), clip.samples.length);
  return out;
}

export interface PauseSet {
  whole: PauseClip[];
  paused: PauseClip[];
}

/** Each clip whole, and with each pause length at each of up to `positions` quiet points (clips with none have no paused copies). */
export function makePauseSet(clips: readonly ClipSource[], positions = 3, lengthsMs: readonly number[] = PAUSE_LENGTHS_MS): PauseSet {
  const whole = clips.map(wholeClip);
  const paused = clips.flatMap((clip) => quietPoints(clip.samples, positions).flatMap((point) => lengthsMs.map((ms) => withPause(clip, point.sample, ms))));
  return { whole, paused };
}

/**
 * The set from Debian's pocketsphinx-testdata: the five LibriVox clips (up to
 * four quiet points each) and cards 001-005 (up to two: they are 1-3.5 s),
 * named `librivox NNNN` and `cards NNN`: 10 whole clips and 40 paused ones
 * (20 points, both lengths; cards 001 has no quiet point).
 */
export async function loadPauseSet(): Promise<PauseSet> {
  const librivox = (await librivoxClips()).map((c) => ({ name: `librivox ${c.name.slice(-4)}`, samples: c.samples, reference: c.transcript }));
  const cards = (await cardsClips()).map((c) => ({ name: `cards ${c.name}`, samples: c.samples, reference: c.transcript }));
  const a = makePauseSet(librivox, 4);
  const b = makePauseSet(cards, 2);
  return { whole: [...a.whole, ...b.whole], paused: [...a.paused, ...b.paused] };
}
