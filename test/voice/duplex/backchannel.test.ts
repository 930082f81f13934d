import { describe, expect, it } from 'vitest';
import { defaultConfig, validateConfig } from '../../../src/config/index.js';
import { DUPLEX_DEFAULTS, isBackchannel, mayBeBackchannel } from '../../../src/voice/duplex/index.js';
import { T1, T2, play, speaking, types, type Timed } from './script.js';

const lists = DUPLEX_DEFAULTS.backchannels;

describe('backchannel words', () => {
  it('match folded: case, punctuation, hyphens, spaces inside a phrase, doubled letters, accents', () => {
    for (const text of ['mm-hm', 'Mm-hm.', 'mmhm', 'mm hm', 'Mm-hmm!', 'Yeah.', 'okay', 'OK', 'Right...', 'go on', 'Go on.', 'uh-huh', 'sì', 'Si.', 'certo', 'va bene']) {
      expect([text, isBackchannel(text, lists)]).toEqual([text, true]);
    }
  });

  it('take one or two phrases, the whole text, and nothing else', () => {
    expect(isBackchannel('yeah okay', lists)).toBe(true);
    expect(isBackchannel('mm-hm, go on', lists)).toBe(true);
    expect(isBackchannel('yeah yeah yeah', lists)).toBe(false);
    for (const text of ['stop', 'wait', 'no', 'yeah but', 'yeah what time is it', 'okay stop', 'go', '', '...']) {
      expect([text, isBackchannel(text, lists)]).toEqual([text, false]);
    }
  });

  it("use the transcript's language's list when it has one, every list otherwise", () => {
    expect(isBackchannel('certo', lists, 'en')).toBe(false);
    expect(isBackchannel('certo', lists, 'it')).toBe(true);
    expect(isBackchannel('certo', lists, 'de')).toBe(true);
    expect(isBackchannel('certo', lists)).toBe(true);
  });

  it('say whether partial words may still become one ("go" of "go on"), and when they cannot', () => {
    expect(mayBeBackchannel('go', lists)).toBe(true);
    expect(mayBeBackchannel('yeah ok', lists)).toBe(true);
    expect(mayBeBackchannel('stop', lists)).toBe(false);
    expect(mayBeBackchannel('yeah what', lists)).toBe(false);
  });

  it('come from [duplex] backchannels: defaults for en and it, a list per language replaces its default, others may be added', () => {
    expect(defaultConfig().duplex.backchannels.en).toEqual(expect.arrayContaining(['mm-hm', 'yeah', 'okay', 'right', 'go on']));
    expect(defaultConfig().duplex.backchannels.it).toEqual(expect.arrayContaining(['sì', 'certo']));
    const result = validateConfig({ duplex: { backchannels: { en: ['yeah'], de: ['ja', 'genau'] } } });
    expect(result.ok && result.config.duplex.backchannels).toEqual({ en: ['yeah'], it: defaultConfig().duplex.backchannels.it, de: ['ja', 'genau'] });
    const bad = validateConfig({ duplex: { backchannels: { en: 'yeah' } } });
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad)).toContain('duplex.backchannels.en');
  });
});

/** Sentence 1 plays from 2500; the user's speech from 3000, confirmed at 3100, ends at 3400; its utterance is cut at 3560. */
const overReply: Timed[] = [...speaking, [3100, { type: 'speech_started', startedAtMs: 3000 }], [3560, { type: 'speech_ended' }]];

describe('duplex state machine: backchannels', () => {
  it('"mm-hm" then silence: the reply goes on where it stopped, no new turn, nothing committed', () => {
    const run = play([...overReply, [3580, { type: 'transcript_partial', text: 'mm' }], [3600, { type: 'transcript_final', text: 'Mm-hm.' }]]);
    expect(run.states.slice(-3)).toEqual(['speaking', 'interrupted', 'speaking']);
    expect(run.effects.at(-1)).toEqual({ type: 'continue_playback', turnId: T1, sentence: 1, words: 'Mm-hm.' });
    // Only the question's turn was started; nothing aborted, nothing committed.
    expect(run.effects.filter((e) => e.type === 'start_turn')).toEqual([{ type: 'start_turn', turnId: T1, text: 'what is the weather' }]);
    expect(types(run.effects)).not.toContain('abort_turn');
    expect(types(run.effects)).not.toContain('commit_played');
    // The reply then finishes as if never stopped: the whole of it is committed once.
    const rest = play([[4000, { type: 'llm_finished', turnId: T1, sentences: 2 }], [4400, { type: 'sentence_played', turnId: T1, sentence: 1 }]], {}, run.state);
    expect(rest.effects).toEqual([{ type: 'commit_played', turnId: T1, sentences: 2, complete: true }]);
  });

  it('"stop" (or "wait", "no") interrupts as before: the reply is cancelled and the words are the next turn', () => {
    for (const words of ['stop', 'wait', 'no']) {
      const run = play([...overReply, [3600, { type: 'transcript_final', text: words }]]);
      expect(run.states.slice(-4)).toEqual(['speaking', 'interrupted', 'listening', 'thinking']);
      expect(types(run.effects).slice(-3)).toEqual(['abort_turn', 'commit_played', 'start_turn']);
      expect(run.effects.at(-1)).toEqual({ type: 'start_turn', turnId: T2, text: words });
    }
    // A partial "stop" confirms it at once, before the final.
    const early = play([...speaking, [3100, { type: 'speech_started', startedAtMs: 3000 }], [3300, { type: 'transcript_partial', text: 'stop' }]]);
    expect(types(early.effects).slice(-2)).toEqual(['abort_turn', 'commit_played']);
  });

  it('a backchannel followed by a question is a turn, in one utterance or in the next', () => {
    const one = play([...speaking, [3100, { type: 'speech_started', startedAtMs: 3000 }], [3300, { type: 'transcript_partial', text: 'yeah' }], [3700, { type: 'transcript_partial', text: 'yeah what time' }]]);
    // "yeah" alone may be a backchannel: the reply stays held; "yeah what" cannot, and ends it.
    expect(one.states.slice(-3)).toEqual(['speaking', 'interrupted', 'listening']);
    const whole = play([[4000, { type: 'speech_ended' }], [4100, { type: 'transcript_final', text: 'yeah what time is it' }]], {}, one.state);
    expect(whole.effects).toEqual([{ type: 'start_turn', turnId: T2, text: 'yeah what time is it' }]);
    // "yeah", a short pause, then the question as the next utterance before the reply went on: the question is the turn.
    const split = play([
      ...speaking,
      [3100, { type: 'speech_started', startedAtMs: 3000 }],
      [3500, { type: 'speech_ended' }],
      [3520, { type: 'speech_started', startedAtMs: 3510 }],
      [3540, { type: 'transcript_final', text: 'yeah' }],
      [4200, { type: 'speech_ended' }],
      [4300, { type: 'transcript_final', text: 'what time is it' }],
    ]);
    expect(types(split.effects)).not.toContain('continue_playback');
    expect(split.effects.at(-1)).toEqual({ type: 'start_turn', turnId: T2, text: 'what time is it' });
  });

  it('waits while the user goes on after a backchannel, and goes on in place if nothing but a cough follows', () => {
    const run = play([
      ...speaking,
      [3100, { type: 'speech_started', startedAtMs: 3000 }],
      [3500, { type: 'speech_ended' }],
      [3520, { type: 'speech_started', startedAtMs: 3510 }],
      [3540, { type: 'transcript_final', text: 'okay' }],
    ]);
    expect(run.state.activity).toBe('interrupted');
    const rest = play([[3700, { type: 'speech_ended' }], [3750, { type: 'transcript_empty' }]], {}, run.state);
    expect(rest.effects).toEqual([{ type: 'continue_playback', turnId: T1, sentence: 1, words: 'okay' }]);
  });

  it('a configured list: an empty one turns backchannels off', () => {
    const off = { backchannels: { en: [], it: [] } };
    const run = play([...overReply, [3600, { type: 'transcript_final', text: 'yeah' }]], off);
    expect(run.effects.at(-1)).toEqual({ type: 'start_turn', turnId: T2, text: 'yeah' });
  });
});
