/**
 * The full-duplex state machine as a pure reducer: (state, input, now) in,
 * the next state and the effects for the runtime out. No clock, no timers,
 * no I/O: the runtime owns those and reports back as inputs.
 */
import type { ToolCallStatus } from '../../events/index.js';
import { isBackchannel, mayBeBackchannel } from './backchannel.js';
import { DUPLEX_DEFAULTS, type DuplexConfig } from './config.js';
import {
  initialDuplexState,
  type ActivityState,
  type DuplexEffect,
  type DuplexInput,
  type DuplexState,
  type DuplexStep,
  type DuplexTimer,
  type InterruptionSource,
  type TurnState,
} from './states.js';

interface Ctx {
  s: DuplexState;
  effects: DuplexEffect[];
  now: number;
  config: DuplexConfig;
}

type ReplyState = 'thinking' | 'speaking' | 'tool_running';

/** Words, not blanks or punctuation: Whisper's "..." or "." is no input. */
const WORDS = /[\p{L}\p{N}]/u;

export function reduce(state: DuplexState, input: DuplexInput, nowMs: number, config: DuplexConfig = DUPLEX_DEFAULTS): DuplexStep {
  if (state.halted) return { state, effects: [] };
  const c: Ctx = { s: structuredClone(state), effects: [], now: nowMs, config };
  handle(c, input);
  return { state: c.s, effects: c.effects };
}

/** Feeds timed inputs in order from `initial`: the states passed through and every effect. For tests and replays. */
export function reduceAll(
  inputs: ReadonlyArray<readonly [atMs: number, input: DuplexInput]>,
  config: DuplexConfig = DUPLEX_DEFAULTS,
  initial: DuplexState = initialDuplexState(),
): DuplexStep & { states: ActivityState[] } {
  let state = initial;
  const effects: DuplexEffect[] = [];
  const states: ActivityState[] = [initial.activity];
  for (const [atMs, input] of inputs) {
    const step = reduce(state, input, atMs, config);
    state = step.state;
    effects.push(...step.effects);
    for (const effect of step.effects) if (effect.type === 'state_changed') states.push(effect.event.state);
  }
  return { state, effects, states };
}

function handle(c: Ctx, input: DuplexInput): void {
  switch (input.type) {
    case 'speech_started':
      return onSpeechStarted(c, input.startedAtMs ?? c.now);
    case 'speech_ended':
      return onSpeechEnded(c);
    case 'transcript_partial':
      // Words heard: the reply is over, unless they may still turn out a backchannel ("go" of "go on"; the final decides).
      if (c.s.activity === 'interrupted' && WORDS.test(input.text) && !mayBeBackchannel(input.text, c.config.backchannels)) confirmInterruption(c);
      return;
    case 'transcript_final':
      return onTranscript(c, WORDS.test(input.text) ? input.text.trim() : null, input.language);
    case 'transcript_empty':
      return onTranscript(c, null);
    case 'sentence_started': {
      const turn = turnOf(c, input.turnId);
      if (!turn || turn.held) return;
      turn.playing = true;
      if (c.s.activity === 'thinking') move(c, 'speaking');
      return;
    }
    case 'sentence_played': {
      const turn = turnOf(c, input.turnId);
      if (!turn) return;
      // A sentence can finish before a stop reaches the next chunk boundary: it was heard, so it counts.
      turn.sentencesPlayed = Math.max(turn.sentencesPlayed, input.sentence + 1);
      turn.playing = false;
      if (c.s.interruption) c.s.interruption.sentence = turn.sentencesPlayed;
      return finishIfDone(c);
    }
    case 'llm_finished': {
      const turn = turnOf(c, input.turnId);
      if (!turn) return;
      turn.sentencesTotal = input.sentences;
      return finishIfDone(c);
    }
    case 'tool_started': {
      const turn = turnOf(c, input.turnId);
      if (!turn) return;
      turn.tools.push({ callId: input.callId, cancellable: input.cancellable });
      if (c.s.activity === 'thinking' || c.s.activity === 'speaking') move(c, 'tool_running');
      return;
    }
    case 'tool_ended':
      return onToolEnded(c, input.turnId, input.callId, input.status);
    case 'interrupt_requested':
      if (!isReply(c.s.activity) && c.s.activity !== 'interrupted') return;
      if (c.s.activity !== 'interrupted') interrupt(c, c.now, input.source, true);
      confirmInterruption(c);
      return;
    case 'timer_fired':
      return onTimer(c, input.timer);
    case 'error':
      return onError(c, input.code, input.recoverable, input.turnId);
    case 'recovery_done':
      return endRecovery(c);
  }
}

/**
 * Speech the barge-in rule confirmed: no threshold or hold here, the rule
 * weighed the scores. During a reply it is a barge-in at once.
 */
function onSpeechStarted(c: Ctx, startedAtMs: number): void {
  const s = c.s;
  s.speech = { startedAtMs, transcribed: false };
  if (isReply(s.activity)) return interrupt(c, startedAtMs, 'barge_in');
  if (s.activity === 'idle') move(c, 'listening');
}

function onSpeechEnded(c: Ctx): void {
  const speech = c.s.speech;
  if (!speech) return;
  c.s.speech = null;
  if (!speech.transcribed) c.s.pendingTranscripts += 1;
  // A backchannel heard while the user went on: now that they stopped, the reply goes on.
  if (c.s.interruption?.backchannel !== undefined) resumeNow(c);
}

/** Holds the reply (playback stops, nothing is aborted yet) until words confirm the interruption. */
function interrupt(c: Ctx, speechStartedAtMs: number, source: InterruptionSource, final = false): void {
  const turn = c.s.turn;
  const from = c.s.activity;
  if (!turn || !isReply(from)) return;
  c.effects.push({ type: 'interrupt_detected', turnId: turn.id, speechStartedAtMs, source, atMs: c.now });
  c.effects.push({ type: 'stop_playback', turnId: turn.id });
  turn.held = true;
  turn.playing = false;
  const deadlineMs = c.now + c.config.falseInterruptionTimeoutMs;
  c.s.interruption = { speechStartedAtMs, atMs: c.now, from, sentence: turn.sentencesPlayed, deadlineMs };
  move(c, 'interrupted');
  if (final) return;
  if (c.config.falseInterruptionTimeoutMs === 0) return confirmInterruption(c);
  c.effects.push({ type: 'set_timer', timer: 'false_interruption', atMs: deadlineMs });
}

/** Words were heard: the reply is over. Only what was played is kept. */
function confirmInterruption(c: Ctx, next: ActivityState = restState(c.s)): void {
  if (c.s.activity !== 'interrupted' || !c.s.turn) return;
  const turnId = c.s.turn.id;
  abortTurn(c, 'interrupted');
  c.s.interruption = null;
  move(c, next, turnId);
}

/**
 * No words by the deadline, the user silent, and no transcript of the
 * interrupting speech still to come: the reply goes on from the sentence it
 * was cut in. While recognition of that speech runs, nothing resumes: its
 * transcript decides (words: the next turn; none: resume at once).
 */
function resumeIfFalse(c: Ctx): void {
  const s = c.s;
  const interruption = s.interruption;
  if (!interruption || c.now < interruption.deadlineMs) return;
  if (s.speech) return; // still talking: the transcript decides
  if (s.pendingTranscripts > 0) return;
  resume(c);
}

/** The reply goes on: in place after a backchannel (the user heard it up to there), else from the start of the cut sentence. */
function resume(c: Ctx): void {
  const { s } = c;
  const interruption = s.interruption;
  const turn = s.turn;
  if (!interruption || !turn) return;
  turn.held = false;
  s.interruption = null;
  const { sentence, backchannel } = interruption;
  c.effects.push(
    backchannel === undefined ? { type: 'resume_from_sentence', turnId: turn.id, sentence } : { type: 'continue_playback', turnId: turn.id, sentence, words: backchannel },
  );
  const next: ActivityState = turn.tools.length > 0 ? 'tool_running' : interruption.from === 'speaking' || turn.sentencesPlayed > 0 ? 'speaking' : 'thinking';
  move(c, next);
  // The cut sentence may have finished before the stop took hold: then nothing is left to play.
  finishIfDone(c);
}

function onTranscript(c: Ctx, text: string | null, language?: string): void {
  const s = c.s;
  if (s.pendingTranscripts > 0) s.pendingTranscripts -= 1;
  else if (s.speech && !s.speech.transcribed) s.speech.transcribed = true;
  // else no VAD events came with it (a file, a test): take it
  if (text === null) {
    if (s.activity === 'listening') move(c, restState(s));
    else if (s.activity === 'interrupted' && s.interruption) resumeNow(c);
    return;
  }
  switch (s.activity) {
    case 'idle':
    case 'listening':
      return startTurn(c, text);
    case 'interrupted':
      if (s.interruption && isBackchannel(text, c.config.backchannels, language)) {
        // "mm-hm": the listener follows. The reply goes on once they are silent; words after it still take the floor.
        s.interruption.backchannel = text;
        return resumeNow(c);
      }
      // Through listening: the buffered user speech is the next input.
      confirmInterruption(c, 'listening');
      return startTurn(c, text);
    case 'recovering':
      s.pendingInput = text;
      return;
    default:
      // User speech that began before this reply (while its question was being heard): its words take the floor.
      return replaceReply(c, text);
  }
}

/** Words of the user's that came during a reply: the reply stops where it is (only what was played is kept) and they are the next turn. */
function replaceReply(c: Ctx, text: string): void {
  const turn = c.s.turn;
  if (!turn) return startTurn(c, text);
  c.effects.push({ type: 'stop_playback', turnId: turn.id });
  abortTurn(c, 'interrupted');
  startTurn(c, text);
}

/** STT found no words in the interrupting speech, or only a backchannel: the reply goes on without waiting for the timeout, once the user is silent and no transcript is due. */
function resumeNow(c: Ctx): void {
  const s = c.s;
  if (s.speech) return;
  if (s.pendingTranscripts > 0) return;
  resume(c);
}

function startTurn(c: Ctx, text: string): void {
  const s = c.s;
  s.turnSeq += 1;
  const id = `${c.config.turnIdPrefix}${s.turnSeq}`;
  s.turn = { id, startedAtMs: c.now, sentencesPlayed: 0, playing: false, sentencesTotal: null, tools: [], held: false };
  s.pendingInput = null;
  c.effects.push({ type: 'start_turn', turnId: id, text });
  move(c, 'thinking');
}

/** The reply is complete: all of it was played and no tool is pending. */
function finishIfDone(c: Ctx): void {
  const turn = c.s.turn;
  if (!turn || turn.held || turn.sentencesTotal === null || turn.sentencesPlayed < turn.sentencesTotal || turn.tools.length > 0) return;
  if (c.s.activity !== 'thinking' && c.s.activity !== 'speaking') return;
  c.effects.push({ type: 'commit_played', turnId: turn.id, sentences: turn.sentencesPlayed, complete: true });
  c.s.turn = null;
  move(c, restState(c.s), turn.id);
}

function onToolEnded(c: Ctx, turnId: string, callId: string, status: ToolCallStatus): void {
  const s = c.s;
  const orphan = s.orphanTools.findIndex((t) => t.turnId === turnId && t.callId === callId);
  if (orphan >= 0) {
    s.orphanTools.splice(orphan, 1);
    c.effects.push({ type: 'discard_tool_result', turnId, callId, status });
    return;
  }
  const turn = turnOf(c, turnId);
  if (!turn) return;
  turn.tools = turn.tools.filter((t) => t.callId !== callId);
  if (s.activity === 'tool_running' && turn.tools.length === 0) move(c, turn.playing ? 'speaking' : 'thinking');
  finishIfDone(c);
}

function onTimer(c: Ctx, timer: DuplexTimer): void {
  const s = c.s;
  switch (timer) {
    case 'false_interruption':
      if (s.activity === 'interrupted') resumeIfFalse(c);
      return;
    case 'recovery':
      if (s.activity === 'recovering' && s.recoveryDeadlineMs !== null && c.now >= s.recoveryDeadlineMs) endRecovery(c);
      return;
  }
}

function onError(c: Ctx, code: string, recoverable: boolean, turnId: string | undefined): void {
  const s = c.s;
  // An error of an aborted turn (often the abort itself) changes nothing.
  if (turnId !== undefined && s.turn?.id !== turnId) return;
  if (recoverable && s.activity === 'recovering') return;
  const previousTurn = s.turn?.id;
  if (s.turn) {
    if (!s.turn.held) c.effects.push({ type: 'stop_playback', turnId: s.turn.id });
    abortTurn(c, recoverable ? 'error' : 'fatal');
  }
  s.interruption = null;
  if (!recoverable) {
    c.effects.push({ type: 'fatal', code });
    move(c, 'idle', previousTurn);
    s.halted = true;
    return;
  }
  s.recoveryDeadlineMs = c.now + c.config.recoveryTimeoutMs;
  c.effects.push({ type: 'set_timer', timer: 'recovery', atMs: s.recoveryDeadlineMs });
  move(c, 'recovering', previousTurn);
}

function endRecovery(c: Ctx): void {
  const s = c.s;
  if (s.activity !== 'recovering') return;
  s.recoveryDeadlineMs = null;
  if (s.pendingInput !== null) return startTurn(c, s.pendingInput);
  move(c, restState(s));
}

/** Aborts the turn once: cancellable tools stop with it, the others finish unheard. */
function abortTurn(c: Ctx, reason: 'interrupted' | 'error' | 'fatal'): void {
  const turn = c.s.turn;
  if (!turn) return;
  const leaveRunning = turn.tools.filter((t) => !t.cancellable).map((t) => t.callId);
  c.effects.push({ type: 'abort_turn', turnId: turn.id, reason, leaveRunning });
  c.effects.push({ type: 'commit_played', turnId: turn.id, sentences: turn.sentencesPlayed, complete: false });
  for (const tool of turn.tools) c.s.orphanTools.push({ turnId: turn.id, callId: tool.callId });
  c.s.turn = null;
}

function move(c: Ctx, next: ActivityState, turnId: string | undefined = c.s.turn?.id): void {
  const previous = c.s.activity;
  if (next === previous) return;
  c.s.activity = next;
  c.effects.push({
    type: 'state_changed',
    event: { type: 'state.changed', stage: 'conversation', state: next, previous, atMs: c.now, ...(turnId === undefined ? {} : { turnId }) },
  });
}

/** Where the machine rests with no reply: listening while user speech is going on or its transcript is due. */
function restState(s: DuplexState): ActivityState {
  return s.speech !== null || s.pendingTranscripts > 0 ? 'listening' : 'idle';
}

function isReply(state: ActivityState): state is ReplyState {
  return state === 'thinking' || state === 'speaking' || state === 'tool_running';
}

function turnOf(c: Ctx, turnId: string): TurnState | null {
  return c.s.turn?.id === turnId ? c.s.turn : null;
}
