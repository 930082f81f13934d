import { describe, expect, it } from 'vitest';
import { T1, T2, ask, play, speaking, types, type Timed } from './script.js';

/** Speech from 3000 during sentence 1, which the barge-in rule confirmed at 3100 (its 100 ms run). */
const bargeIn: Timed[] = [...speaking, [3100, { type: 'speech_started', startedAtMs: 3000 }]];

describe('duplex state machine: barge-in', () => {
  it('speaking -> interrupted -> listening, and the buffered speech is the next input', () => {
    const run = play([
      ...bargeIn,
      [3300, { type: 'transcript_partial', text: 'wait' }],
      [3800, { type: 'speech_ended' }],
      [4000, { type: 'transcript_final', text: 'wait, tomorrow instead' }],
    ]);
    expect(run.states).toEqual(['idle', 'listening', 'thinking', 'speaking', 'interrupted', 'listening', 'thinking']);
    expect(run.effects.slice(1)).toEqual([
      { type: 'interrupt_detected', turnId: T1, speechStartedAtMs: 3000, source: 'barge_in', atMs: 3100 },
      { type: 'stop_playback', turnId: T1 },
      { type: 'set_timer', timer: 'false_interruption', atMs: 5100 },
      // Words heard: LLM, TTS and playback of the turn are cancelled; only sentence 0 was played.
      { type: 'abort_turn', turnId: T1, reason: 'interrupted', leaveRunning: [] },
      { type: 'commit_played', turnId: T1, sentences: 1, complete: false },
      { type: 'start_turn', turnId: T2, text: 'wait, tomorrow instead' },
    ]);
  });

  it('stops the reply at the onset the rule confirmed, without a second threshold or hold', () => {
    // Settings under which the old second check (threshold, then a hold timer) would have held this onset back.
    const strict = { bargeInThreshold: 1, minBargeInSpeechMs: 2000, doubleTalkMinSpeechMs: 2000 };
    const run = play(bargeIn, strict);
    expect(run.state.activity).toBe('interrupted');
    expect(types(run.effects).slice(1)).toEqual(['interrupt_detected', 'stop_playback', 'set_timer']);
    expect(run.effects).toContainEqual({ type: 'interrupt_detected', turnId: T1, speechStartedAtMs: 3000, source: 'barge_in', atMs: 3100 });
    expect(run.effects.some((e) => e.type === 'set_timer' && e.timer !== 'false_interruption')).toBe(false);
    // Stop right behind the detection, measured from the speech start the rule reported.
    expect(types(run.effects).indexOf('stop_playback')).toBe(types(run.effects).indexOf('interrupt_detected') + 1);
  });

  it('without partial transcripts, goes interrupted -> listening -> thinking when the final comes', () => {
    const run = play([...bargeIn, [3700, { type: 'speech_ended' }], [3900, { type: 'transcript_final', text: 'stop' }]]);
    expect(run.states.slice(-4)).toEqual(['speaking', 'interrupted', 'listening', 'thinking']);
    expect(run.effects.at(-1)).toEqual({ type: 'start_turn', turnId: T2, text: 'stop' });
  });

  it('makes every barge-in final at once when the false-interruption timeout is 0', () => {
    const run = play(bargeIn, { falseInterruptionTimeoutMs: 0 });
    expect(run.states.slice(-3)).toEqual(['speaking', 'interrupted', 'listening']);
    expect(types(run.effects).slice(-4)).toEqual(['interrupt_detected', 'stop_playback', 'abort_turn', 'commit_played']);
  });

  it('interrupts thinking, before any audio', () => {
    const run = play([...ask, [1200, { type: 'speech_started' }]]);
    expect(run.states.slice(-2)).toEqual(['thinking', 'interrupted']);
  });
});

describe('duplex state machine: idempotent cancellation', () => {
  it('aborts a turn once however often it is interrupted or cancelled', () => {
    const run = play([
      ...bargeIn,
      [3150, { type: 'interrupt_requested', source: 'api' }],
      [3200, { type: 'interrupt_requested', source: 'key' }],
      [3300, { type: 'transcript_partial', text: 'stop' }],
      [3400, { type: 'error', code: 'LLM_ABORTED', recoverable: true, turnId: T1 }],
      [3500, { type: 'sentence_started', turnId: T1, sentence: 2 }],
      [3600, { type: 'llm_finished', turnId: T1, sentences: 3 }],
    ]);
    expect(types(run.effects).filter((t) => t === 'abort_turn' || t === 'stop_playback' || t === 'commit_played')).toEqual([
      'stop_playback',
      'abort_turn',
      'commit_played',
    ]);
    expect(run.states.slice(-3)).toEqual(['speaking', 'interrupted', 'listening']);
  });

  it('an interrupt request stops and aborts a reply at once, and does nothing when idle', () => {
    const run = play([...speaking, [3000, { type: 'interrupt_requested', source: 'api' }], [3100, { type: 'interrupt_requested', source: 'api' }]]);
    expect(run.states.slice(-3)).toEqual(['speaking', 'interrupted', 'idle']);
    expect(types(run.effects).slice(1)).toEqual(['interrupt_detected', 'stop_playback', 'abort_turn', 'commit_played']);
    expect(play([[0, { type: 'interrupt_requested', source: 'key' }]]).all).toEqual([]);
    expect(run.effects).toContainEqual({ type: 'interrupt_detected', turnId: T1, speechStartedAtMs: 3000, source: 'api', atMs: 3000 });
  });

  it('takes words that come during a reply from speech begun before it as the next turn, not dropping them', () => {
    // The user went on talking after the question; the question's transcript started the reply first.
    const run = play([
      [0, { type: 'speech_started' }],
      [800, { type: 'speech_ended' }],
      [900, { type: 'speech_started' }],
      [1000, { type: 'transcript_final', text: 'what is the weather' }],
      [1500, { type: 'sentence_started', turnId: T1, sentence: 0 }],
      [1700, { type: 'speech_ended' }],
      [1900, { type: 'transcript_final', text: 'in paris' }],
    ]);
    expect(run.states.slice(-3)).toEqual(['thinking', 'speaking', 'thinking']);
    expect(types(run.effects).slice(-4)).toEqual(['stop_playback', 'abort_turn', 'commit_played', 'start_turn']);
    expect(run.effects.at(-1)).toEqual({ type: 'start_turn', turnId: T2, text: 'in paris' });
  });
});

describe('duplex state machine: false interruption', () => {
  it('resumes from the interrupted sentence when the timeout passes with the user silent and no transcript due', () => {
    // The speech was recognized (nothing to answer) before it ended; the deadline then passes in silence.
    const run = play([
      ...bargeIn,
      [3400, { type: 'transcript_empty' }],
      [3500, { type: 'speech_ended' }],
      [5100, { type: 'timer_fired', timer: 'false_interruption' }],
      [5300, { type: 'sentence_started', turnId: T1, sentence: 1 }],
      [6000, { type: 'llm_finished', turnId: T1, sentences: 2 }],
      [6200, { type: 'sentence_played', turnId: T1, sentence: 1 }],
    ]);
    expect(run.states).toEqual(['idle', 'listening', 'thinking', 'speaking', 'interrupted', 'speaking', 'idle']);
    expect(types(run.effects)).not.toContain('abort_turn');
    expect(run.effects).toContainEqual({ type: 'resume_from_sentence', turnId: T1, sentence: 1 });
    expect(run.effects.at(-1)).toEqual({ type: 'commit_played', turnId: T1, sentences: 2, complete: true });
  });

  it('never resumes while the transcript of the interrupting speech is due: late words are the next turn', () => {
    // Recognition of the interruption took longer than the timeout (the room bench saw 8 of 20 barge-ins lost this way).
    const run = play([
      ...bargeIn,
      [3500, { type: 'speech_ended' }],
      [5100, { type: 'timer_fired', timer: 'false_interruption' }],
      [7600, { type: 'timer_fired', timer: 'false_interruption' }],
      [8000, { type: 'transcript_final', text: 'late words' }],
    ]);
    expect(types(run.effects)).not.toContain('resume_from_sentence');
    expect(run.states.slice(-3)).toEqual(['interrupted', 'listening', 'thinking']);
    expect(run.effects.at(-1)).toEqual({ type: 'start_turn', turnId: 'duplex-2', text: 'late words' });
  });

  it('resumes at once when the transcript of the interrupting speech is empty', () => {
    const run = play([...bargeIn, [3400, { type: 'speech_ended' }], [3600, { type: 'transcript_empty' }]]);
    expect(run.states.slice(-3)).toEqual(['speaking', 'interrupted', 'speaking']);
    expect(run.effects.at(-1)).toEqual({ type: 'resume_from_sentence', turnId: T1, sentence: 1 });
  });

  it('waits past the timeout while the user is still talking, then lets the transcript decide', () => {
    const talking = play([...bargeIn, [5100, { type: 'timer_fired', timer: 'false_interruption' }]]);
    expect(talking.state.activity).toBe('interrupted');
    const run = play([[5600, { type: 'speech_ended' }], [5800, { type: 'transcript_final', text: 'no, the other one' }]], {}, talking.state);
    expect(run.states).toEqual(['interrupted', 'listening', 'thinking']);
    expect(types(run.effects)).toEqual(['abort_turn', 'commit_played', 'start_turn']);
  });

  it('waits for the transcript of speech that ended just before the deadline (recognition takes time)', () => {
    // Interrupted at 3100 (deadline 5100); the user talked until 5000; the words come at 5250.
    const run = play([...bargeIn, [5000, { type: 'speech_ended' }], [5100, { type: 'timer_fired', timer: 'false_interruption' }], [5250, { type: 'transcript_final', text: 'stop talking' }]]);
    expect(types(run.effects)).not.toContain('resume_from_sentence');
    expect(run.states.slice(-3)).toEqual(['interrupted', 'listening', 'thinking']);
    expect(run.effects.at(-1)).toEqual({ type: 'start_turn', turnId: 'duplex-2', text: 'stop talking' });
  });

  it('ignores an early false-interruption timer', () => {
    const run = play([...bargeIn, [3400, { type: 'speech_ended' }], [4000, { type: 'timer_fired', timer: 'false_interruption' }]]);
    expect(run.state.activity).toBe('interrupted');
  });

  it('resumes after the sentence that finished before the stop took hold, and finishes if nothing is left', () => {
    const run = play([
      ...bargeIn,
      [3110, { type: 'sentence_played', turnId: T1, sentence: 1 }],
      [3120, { type: 'llm_finished', turnId: T1, sentences: 2 }],
      [3400, { type: 'speech_ended' }],
      [3500, { type: 'transcript_empty' }],
    ]);
    expect(run.effects.slice(-2)).toEqual([
      { type: 'resume_from_sentence', turnId: T1, sentence: 2 },
      { type: 'commit_played', turnId: T1, sentences: 2, complete: true },
    ]);
    expect(run.states.slice(-3)).toEqual(['interrupted', 'speaking', 'idle']);
  });

  it('a false interruption during thinking returns to thinking', () => {
    const run = play([...ask, [1200, { type: 'speech_started' }], [1300, { type: 'speech_ended' }], [1400, { type: 'transcript_empty' }]]);
    expect(run.states.slice(-3)).toEqual(['thinking', 'interrupted', 'thinking']);
    expect(run.effects.at(-1)).toEqual({ type: 'resume_from_sentence', turnId: T1, sentence: 0 });
  });
});

describe('duplex state machine: only played text is committed', () => {
  it('commits the sentences fully played before the interruption, not the one cut off', () => {
    const run = play([
      ...speaking,
      [3400, { type: 'sentence_played', turnId: T1, sentence: 1 }],
      [3400, { type: 'sentence_started', turnId: T1, sentence: 2 }],
      [3500, { type: 'interrupt_requested', source: 'key' }],
    ]);
    expect(run.effects).toContainEqual({ type: 'commit_played', turnId: T1, sentences: 2, complete: false });
  });

  it('commits nothing when the interruption comes before the first sentence ends', () => {
    const run = play([...ask, [1500, { type: 'sentence_started', turnId: T1, sentence: 0 }], [1700, { type: 'interrupt_requested', source: 'key' }]]);
    expect(run.effects).toContainEqual({ type: 'commit_played', turnId: T1, sentences: 0, complete: false });
  });
});
