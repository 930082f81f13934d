import { describe, expect, it } from 'vitest';
import { T1, T2, ask, play, speaking, types, type Timed } from './script.js';

const toolCall = (cancellable: boolean): Timed[] => [...ask, [1200, { type: 'tool_started', turnId: T1, callId: 'c1', cancellable }]];

/** The user talks over a running tool (the detector confirmed the speech: it holds the reply at once) and the words confirm it. */
const talkOver: Timed[] = [
  [1500, { type: 'speech_started' }],
  [1700, { type: 'transcript_partial', text: 'never mind' }],
];

describe('duplex state machine: tool_running', () => {
  it('thinking -> tool_running -> thinking -> speaking -> idle', () => {
    const run = play([
      ...toolCall(true),
      [1800, { type: 'tool_ended', turnId: T1, callId: 'c1', status: 'ok' }],
      [2000, { type: 'sentence_started', turnId: T1, sentence: 0 }],
      [2100, { type: 'llm_finished', turnId: T1, sentences: 1 }],
      [2600, { type: 'sentence_played', turnId: T1, sentence: 0 }],
    ]);
    expect(run.states).toEqual(['idle', 'listening', 'thinking', 'tool_running', 'thinking', 'speaking', 'idle']);
  });

  it('leaves tool_running when the tool fails, is rejected or cancelled, and only when the last one ends', () => {
    for (const status of ['error', 'refused', 'cancelled', 'timeout'] as const) {
      const run = play([...toolCall(true), [1800, { type: 'tool_ended', turnId: T1, callId: 'c1', status }]]);
      expect(run.states.slice(-2)).toEqual(['tool_running', 'thinking']);
    }
    const two = play([...toolCall(true), [1300, { type: 'tool_started', turnId: T1, callId: 'c2', cancellable: true }], [1800, { type: 'tool_ended', turnId: T1, callId: 'c1', status: 'ok' }]]);
    expect(two.state.activity).toBe('tool_running');
  });

  it('goes back to speaking when the announcement still plays as the tool ends', () => {
    const run = play([...speaking, [2600, { type: 'tool_started', turnId: T1, callId: 'c1', cancellable: true }], [2900, { type: 'tool_ended', turnId: T1, callId: 'c1', status: 'ok' }]]);
    expect(run.states.slice(-3)).toEqual(['speaking', 'tool_running', 'speaking']);
  });

  it('an interruption cancels a cancellable tool with the turn', () => {
    const run = play([...toolCall(true), ...talkOver, [1750, { type: 'tool_ended', turnId: T1, callId: 'c1', status: 'cancelled' }]]);
    expect(run.states.slice(-3)).toEqual(['tool_running', 'interrupted', 'listening']);
    expect(run.effects).toContainEqual({ type: 'abort_turn', turnId: T1, reason: 'interrupted', leaveRunning: [] });
    expect(run.effects.at(-1)).toEqual({ type: 'discard_tool_result', turnId: T1, callId: 'c1', status: 'cancelled' });
  });

  it('an interruption lets a non-cancellable tool finish, and its result is not spoken', () => {
    const run = play([
      ...toolCall(false),
      ...talkOver,
      [1900, { type: 'speech_ended' }],
      [2000, { type: 'transcript_final', text: 'never mind, play music' }],
      [2500, { type: 'tool_ended', turnId: T1, callId: 'c1', status: 'ok' }],
    ]);
    expect(run.effects).toContainEqual({ type: 'abort_turn', turnId: T1, reason: 'interrupted', leaveRunning: ['c1'] });
    // The old tool's end changes nothing for the new turn: no resume, no speaking, no state change.
    expect(run.effects.at(-1)).toEqual({ type: 'discard_tool_result', turnId: T1, callId: 'c1', status: 'ok' });
    expect(run.states.slice(-4)).toEqual(['tool_running', 'interrupted', 'listening', 'thinking']);
    expect(run.state.turn?.id).toBe(T2);
    expect(run.state.orphanTools).toEqual([]);
    expect(types(run.effects)).not.toContain('resume_from_sentence');
  });

  it('a false interruption during a tool returns to tool_running', () => {
    const run = play([...toolCall(false), [1500, { type: 'speech_started' }], [1700, { type: 'speech_ended' }], [1800, { type: 'transcript_empty' }]]);
    expect(run.states.slice(-3)).toEqual(['tool_running', 'interrupted', 'tool_running']);
  });
});

describe('duplex state machine: recovery', () => {
  const ttsFails: Timed = [3000, { type: 'error', code: 'TTS_FAILED', recoverable: true, turnId: T1 }];

  it('speaking -> recovering -> idle: stops, aborts, commits only played text', () => {
    const run = play([...speaking, ttsFails, [3200, { type: 'recovery_done' }]]);
    expect(run.states.slice(-3)).toEqual(['speaking', 'recovering', 'idle']);
    expect(run.effects.slice(1)).toEqual([
      { type: 'stop_playback', turnId: T1 },
      { type: 'abort_turn', turnId: T1, reason: 'error', leaveRunning: [] },
      { type: 'commit_played', turnId: T1, sentences: 1, complete: false },
      { type: 'set_timer', timer: 'recovery', atMs: 6000 },
    ]);
  });

  it('recovers to listening while the user is talking, and a transcript heard meanwhile becomes the next turn', () => {
    const talking = play([...speaking, ttsFails, [3100, { type: 'speech_started' }], [3200, { type: 'recovery_done' }]]);
    expect(talking.states.slice(-2)).toEqual(['recovering', 'listening']);
    const heard = play([...speaking, ttsFails, [3100, { type: 'transcript_final', text: 'try again' }], [3200, { type: 'recovery_done' }]]);
    expect(heard.states.slice(-2)).toEqual(['recovering', 'thinking']);
    expect(heard.effects.at(-1)).toEqual({ type: 'start_turn', turnId: T2, text: 'try again' });
  });

  it('a watchdog ends recovery when cleanup never reports done, and only at its deadline', () => {
    const early = play([...speaking, ttsFails, [4000, { type: 'timer_fired', timer: 'recovery' }]]);
    expect(early.state.activity).toBe('recovering');
    const run = play([...speaking, ttsFails, [6000, { type: 'timer_fired', timer: 'recovery' }]]);
    expect(run.states.slice(-2)).toEqual(['recovering', 'idle']);
  });

  it('repeated errors during recovery cancel nothing twice', () => {
    const run = play([...speaking, ttsFails, [3050, { type: 'error', code: 'PLAYBACK_FAILED', recoverable: true }], [3060, ttsFails[1]]]);
    expect(types(run.effects).filter((t) => t === 'abort_turn')).toHaveLength(1);
    expect(run.states.slice(-2)).toEqual(['speaking', 'recovering']);
  });

  it('an STT error while listening recovers without a turn to abort', () => {
    const run = play([[0, { type: 'speech_started' }], [500, { type: 'error', code: 'STT_FAILED', recoverable: true }], [600, { type: 'speech_ended' }], [700, { type: 'recovery_done' }]]);
    expect(run.states).toEqual(['idle', 'listening', 'recovering', 'listening']);
    expect(types(run.effects)).toEqual(['set_timer']);
  });

  it('an error during an interruption recovers without stopping playback twice', () => {
    const run = play([...speaking, [3100, { type: 'speech_started', startedAtMs: 3000 }], [3200, { type: 'error', code: 'LLM_FAILED', recoverable: true }]]);
    expect(types(run.effects).filter((t) => t === 'stop_playback')).toHaveLength(1);
    expect(run.states.slice(-3)).toEqual(['speaking', 'interrupted', 'recovering']);
  });

  it('a non-recoverable error cleans up, reports fatal, goes idle and ignores what follows', () => {
    const run = play([...speaking, [3000, { type: 'error', code: 'AUDIO_APM_FORMAT_MISMATCH', recoverable: false }], [3100, { type: 'transcript_final', text: 'hello?' }]]);
    expect(run.states.slice(-2)).toEqual(['speaking', 'idle']);
    expect(types(run.effects).slice(1)).toEqual(['stop_playback', 'abort_turn', 'commit_played', 'fatal']);
    expect(run.effects.at(-1)).toEqual({ type: 'fatal', code: 'AUDIO_APM_FORMAT_MISMATCH' });
    expect(run.state.halted).toBe(true);
  });
});
