import { DUPLEX_DEFAULTS, reduceAll, type DuplexConfig, type DuplexEffect, type DuplexInput, type DuplexState } from '../../../src/voice/duplex/index.js';

export type Timed = readonly [atMs: number, input: DuplexInput];

/** Runs timed inputs; `states` is the state sequence, `effects` the effects other than state changes. */
export function play(inputs: Timed[], config: Partial<DuplexConfig> = {}, initial?: DuplexState) {
  const result = reduceAll(inputs, { ...DUPLEX_DEFAULTS, ...config }, initial);
  return { ...result, effects: result.effects.filter((e) => e.type !== 'state_changed'), all: result.effects };
}

export const types = (effects: DuplexEffect[]): string[] => effects.map((e) => e.type);

export const T1 = 'duplex-1';
export const T2 = 'duplex-2';

/** The user asks, at 0..800 ms; the transcript comes at 1000 and turn duplex-1 starts. */
export const ask: Timed[] = [
  [0, { type: 'speech_started' }],
  [800, { type: 'speech_ended' }],
  [1000, { type: 'transcript_final', text: 'what is the weather' }],
];

/** ...then sentence 0 plays 1500..2500 and sentence 1 starts at 2500: the assistant is speaking. */
export const speaking: Timed[] = [
  ...ask,
  [1500, { type: 'sentence_started', turnId: T1, sentence: 0 }],
  [2500, { type: 'sentence_played', turnId: T1, sentence: 0 }],
  [2500, { type: 'sentence_started', turnId: T1, sentence: 1 }],
];
