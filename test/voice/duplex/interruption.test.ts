import { describe, expect, it } from 'vitest';
import { T1, T2, ask, play, speaking, types, type Timed } from './script.js';

/** Valid speech (0.9 >= the 0.8 barge-in threshold) at 3000 during sentence 1; 100 ms later the barge-in timer fires. */
const bargeIn: Timed[] = [
  ...speaking,
  [3000, { type: 'speech_started', confidence: 0.9 }],
  [3100, { type: 'timer_fired', timer: 'barge_in' }],
];

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
      { type: 'set_timer', timer: 'barge_in', atMs: 3100 },
      { type: 'interrupt_detected', turnId: T1, speechStartedAtMs: 3000, source: 'barge_in', atMs: 3100 },
      { type: 'stop_playback', turnId: T1 },
      { type: 'set_timer', timer: 'false_interruption', atMs: 5100 },
      // Words heard: LLM, TTS and playback of the turn are cancelled; only sentence 0 was played.
      { type: 'abort_turn', turnId: T1, reason: 'interrupted', leaveRunning: [] },
      { type: 'commit_played', turnId: T1, sentences: 1, complete: false },
      { type: 'start_turn', turnId: T2, text: 'wait, tomorrow instead' },
    ]);
  });

  it('stops playback within the 200 ms target of speech start with the default minimum', () => {
    const run = play(bargeIn);
    const detected = run.effects.find((e) => e.type === 'interrupt_detected');
    expect(detected && detected.type === 'interrupt_detected' && detected.atMs - detected.speechStartedAtMs).toBe(100);
    expect(types(run.effects).indexOf('stop_playback')).toBe(types(run.effects).indexOf('interrupt_detected') + 1);
  });

  it('stops at once for a double-talk onset, whose run (doubleTalkMinSpeechMs) already is the evidence; a cleaned one waits', () => {
    // The detector confirmed 64 ms of double talk from 3000 at 3064 (the default run).
    const doubleTalk = play([...speaking, [3064, { type: 'speech_started', confidence: 0.9, startedAtMs: 3000, rule: 'double_talk' }]]);
    expect(doubleTalk.state.activity).toBe('interrupted');
    expect(doubleTalk.effects).toContainEqual({ type: 'interrupt_detected', turnId: T1, speechStartedAtMs: 3000, source: 'barge_in', atMs: 3064 });
    // The same onset from the cleaned path is held until minBargeInSpeechMs (100) from its start.
    const cleaned = play([...speaking, [3064, { type: 'speech_started', confidence: 0.9, startedAtMs: 3000, rule: 'cleaned' }]]);
    expect(cleaned.state.activity).toBe('speaking');
    expect(cleaned.effects.at(-1)).toEqual({ type: 'set_timer', timer: 'barge_in', atMs: 3100 });
    // A double-talk onset reported before its run is complete waits for the rest of the run, and ends as a cough if the speech does.
    const early = play([...speaking, [3020, { type: 'speech_started', confidence: 0.9, startedAtMs: 3000, rule: 'double_talk' }], [3040, { type: 'speech_ended' }]]);
    expect(early.effects).toContainEqual({ type: 'set_timer', timer: 'barge_in', atMs: 3064 });
    expect(early.state.activity).toBe('speaking');
  });

  it('measures from the speech start the VAD reports, not from when it reported it', () => {
    const run = play([...speaking, [3120, { type: 'speech_started', confidence: 0.9, startedAtMs: 3000 }]]);
    expect(run.state.activity).toBe('interrupted');
    expect(run.effects).toContainEqual({ type: 'interrupt_detected', turnId: T1, speechStartedAtMs: 3000, source: 'barge_in', atMs: 3120 });
  });

  it('without partial transcripts, goes interrupted -> listening -> thinking when the final comes', () => {
    const run = play([...bargeIn, [3700, { type: 'speech_ended' }], [3900, { type: 'transcript_final', text: 'stop' }]]);
    expect(run.states.slice(-4)).toEqual(['speaking', 'interrupted', 'listening', 'thinking']);
    expect(run.effects.at(-1)).toEqual({ type: 'start_turn', turnId: T2, text: 'stop' });
  });

  it('confirms a long enough utterance at its end when the timer has not fired', () => {
    const run = play([...speaking, [3000, { type: 'speech_started', confidence: 0.9 }], [3250, { type: 'speech_ended' }]]);
    expect(run.state.activity).toBe('interrupted');
    expect(run.effects).toContainEqual({ type: 'interrupt_detected', turnId: T1, speechStartedAtMs: 3000, source: 'barge_in', atMs: 3250 });
  });

  it('never interrupts for echo-like speech below the stricter threshold', () => {
    const run = play([
      ...speaking,
      // 0.7 passes the normal threshold (0.5), not the barge-in one (0.8).
      [3000, { type: 'speech_started', confidence: 0.7 }],
      [3500, { type: 'timer_fired', timer: 'barge_in' }],
      [3600, { type: 'speech_ended' }],
      [3700, { type: 'transcript_final', text: 'the weather today is' }],
      [4000, { type: 'llm_finished', turnId: T1, sentences: 2 }],
      [4100, { type: 'sentence_played', turnId: T1, sentence: 1 }],
    ]);
    expect(run.states).toEqual(['idle', 'listening', 'thinking', 'speaking', 'idle']);
    expect(types(run.effects)).toEqual(['start_turn', 'commit_played']);
  });

  it('applies the stricter threshold to an echo tail after playback when the runtime says so', () => {
    expect(play([[0, { type: 'speech_started', confidence: 0.7, duringPlayback: true }]]).states).toEqual(['idle']);
    expect(play([[0, { type: 'speech_started', confidence: 0.85, duringPlayback: true }]]).states).toEqual(['idle', 'listening']);
  });

  it('never interrupts for speech shorter than the minimum, and drops its transcript', () => {
    const run = play([
      ...speaking,
      [3000, { type: 'speech_started', confidence: 0.95 }],
      [3060, { type: 'speech_ended' }],
      [3100, { type: 'timer_fired', timer: 'barge_in' }],
      [3300, { type: 'transcript_final', text: 'mhm' }],
      [4000, { type: 'llm_finished', turnId: T1, sentences: 2 }],
      [4100, { type: 'sentence_played', turnId: T1, sentence: 1 }],
    ]);
    expect(run.states).toEqual(['idle', 'listening', 'thinking', 'speaking', 'idle']);
    expect(types(run.effects)).toEqual(['start_turn', 'set_timer', 'commit_played']);
  });

  it('honours a configured minimum and threshold', () => {
    const strict = { minBargeInSpeechMs: 300, bargeInThreshold: 0.95 };
    expect(play(bargeIn, strict).state.activity).toBe('speaking');
    const run = play([...speaking, [3000, { type: 'speech_started', confidence: 0.96 }], [3300, { type: 'timer_fired', timer: 'barge_in' }]], strict);
    expect(run.state.activity).toBe('interrupted');
  });

  it('makes every barge-in final at once when the false-interruption timeout is 0', () => {
    const run = play(bargeIn, { falseInterruptionTimeoutMs: 0 });
    expect(run.states.slice(-3)).toEqual(['speaking', 'interrupted', 'listening']);
    expect(types(run.effects).slice(-4)).toEqual(['interrupt_detected', 'stop_playback', 'abort_turn', 'commit_played']);
  });

  it('interrupts thinking with plain speech, before any audio', () => {
    const run = play([...ask, [1200, { type: 'speech_started', confidence: 0.6 }], [1300, { type: 'timer_fired', timer: 'barge_in' }]]);
    expect(run.states.slice(-2)).toEqual(['thinking', 'interrupted']);
  });
});

describe('duplex state machine: idempotent cancellation', () => {
  it('aborts a turn once however often it is interrupted or cancelled', () => {
    const run = play([
      ...bargeIn,
      [3100, { type: 'timer_fired', timer: 'barge_in' }],
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
      [0, { type: 'speech_started', confidence: 0.9 }],
      [800, { type: 'speech_ended' }],
      [900, { type: 'speech_started', confidence: 0.9 }],
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
    const run = play([...ask, [1200, { type: 'speech_started', confidence: 0.6 }], [1300, { type: 'speech_ended' }], [1400, { type: 'transcript_empty' }]]);
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
