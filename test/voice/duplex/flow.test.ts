import { describe, expect, it } from 'vitest';
import { initialDuplexState, reduce, type DuplexState } from '../../../src/voice/duplex/index.js';
import { T1, T2, ask, play, speaking, types } from './script.js';

describe('duplex state machine: a turn', () => {
  it('idle -> listening -> thinking -> speaking -> idle, committing the whole reply', () => {
    const run = play([
      ...speaking,
      [3000, { type: 'llm_finished', turnId: T1, sentences: 2 }],
      [3400, { type: 'sentence_played', turnId: T1, sentence: 1 }],
    ]);
    expect(run.states).toEqual(['idle', 'listening', 'thinking', 'speaking', 'idle']);
    expect(run.effects).toEqual([
      { type: 'start_turn', turnId: T1, text: 'what is the weather' },
      { type: 'commit_played', turnId: T1, sentences: 2, complete: true },
    ]);
    // Each transition is a state.changed event stamped by the virtual clock.
    const changes = run.all.flatMap((e) => (e.type === 'state_changed' ? [e.event] : []));
    expect(changes.map((e) => [e.previous, e.state, e.atMs, e.turnId])).toEqual([
      ['idle', 'listening', 0, undefined],
      ['listening', 'thinking', 1000, T1],
      ['thinking', 'speaking', 1500, T1],
      ['speaking', 'idle', 3400, T1],
    ]);
    expect(changes.every((e) => e.type === 'state.changed' && e.stage === 'conversation')).toBe(true);
  });

  it('waits for the last sentence when the LLM finishes first, and for the LLM when playback drains first', () => {
    const early = play([...speaking, [2600, { type: 'llm_finished', turnId: T1, sentences: 2 }]]);
    expect(early.state.activity).toBe('speaking');
    const drained = play([...speaking, [3400, { type: 'sentence_played', turnId: T1, sentence: 1 }]]);
    expect(drained.state.activity).toBe('speaking');
    expect(play([...speaking, [3400, { type: 'sentence_played', turnId: T1, sentence: 1 }], [3500, { type: 'llm_finished', turnId: T1, sentences: 2 }]]).state.activity).toBe('idle');
  });

  it('a reply with nothing to say goes from thinking to idle', () => {
    const run = play([...ask, [1200, { type: 'llm_finished', turnId: T1, sentences: 0 }]]);
    expect(run.states).toEqual(['idle', 'listening', 'thinking', 'idle']);
  });

  it('takes a final transcript without VAD events (a file, a key) straight to thinking', () => {
    const run = play([[5, { type: 'transcript_final', text: '  hello  ' }]]);
    expect(run.states).toEqual(['idle', 'thinking']);
    expect(run.effects).toEqual([{ type: 'start_turn', turnId: T1, text: 'hello' }]);
  });

  it('discards an empty or punctuation-only transcript without invoking the LLM', () => {
    for (const last of [{ type: 'transcript_empty' }, { type: 'transcript_final', text: ' ... ' }] as const) {
      const run = play([...ask.slice(0, 2), [1000, last]]);
      expect(run.states).toEqual(['idle', 'listening', 'idle']);
      expect(run.effects).toEqual([]);
    }
  });

  it('stays listening while the next utterance is going on when a transcript comes empty', () => {
    const run = play([...ask.slice(0, 2), [900, { type: 'speech_started' }], [1000, { type: 'transcript_empty' }]]);
    expect(run.state.activity).toBe('listening');
    const next = play([[0, { type: 'speech_ended' }], [100, { type: 'transcript_final', text: 'second try' }]], {}, run.state);
    expect(next.effects).toEqual([{ type: 'start_turn', turnId: T1, text: 'second try' }]);
  });

  it('numbers turns so a replay gives the same ids', () => {
    const run = play([...ask, [1200, { type: 'llm_finished', turnId: T1, sentences: 0 }], [2000, { type: 'transcript_final', text: 'again' }]]);
    expect(run.effects.filter((e) => e.type === 'start_turn').map((e) => e.type === 'start_turn' && e.turnId)).toEqual([T1, T2]);
    expect(play(ask, { turnIdPrefix: 'v' }).effects).toEqual([{ type: 'start_turn', turnId: 'v1', text: 'what is the weather' }]);
  });

  it('is pure: the given state is never changed', () => {
    const deepFreeze = <T>(value: T): T => {
      if (value && typeof value === 'object') for (const v of Object.values(value)) deepFreeze(v);
      return Object.freeze(value);
    };
    const before: DuplexState = deepFreeze(play(speaking).state);
    const copy = structuredClone(before);
    const step = reduce(before, { type: 'speech_started' }, 3000);
    expect(before).toEqual(copy);
    expect(step.state).not.toBe(before);
    expect(types(step.effects)).toEqual(['interrupt_detected', 'stop_playback', 'state_changed', 'set_timer']);
    expect(reduce(initialDuplexState(), { type: 'speech_ended' }, 0).effects).toEqual([]);
  });
});
