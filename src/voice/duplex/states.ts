/**
 * The full-duplex state machine's data: its state, the inputs the runtime
 * feeds it and the effects it asks the runtime to carry out. All plain data,
 * so a test reads as inputs in, states and effects out.
 */
import type { ActivityState, AssistantEvent, ToolCallStatus } from '../../events/index.js';

export type { ActivityState };

export type StateChangedEvent = Extract<AssistantEvent, { type: 'state.changed' }>;

/** Named one-shot timers: setting one replaces it; a fire that no longer matters is ignored. */
export type DuplexTimer = 'false_interruption' | 'recovery';

export interface ToolCall {
  callId: string;
  /** It takes the turn's AbortSignal; a tool that does not is left to finish. */
  cancellable: boolean;
}

/** The reply being generated and played. Sentences are numbered from 0 across the whole turn. */
export interface TurnState {
  id: string;
  startedAtMs: number;
  /** Sentences fully played: the text eligible for history. */
  sentencesPlayed: number;
  /** A sentence's audio is playing now. */
  playing: boolean;
  /** Sentences in the whole reply once the LLM has finished; null while it streams. */
  sentencesTotal: number | null;
  tools: ToolCall[];
  /** Playback was stopped for an interruption and nothing of this turn plays until resumed. */
  held: boolean;
}

/** The utterance going on now: speech the barge-in detector confirmed (echo and coughs under a reply never get here). */
export interface Speech {
  startedAtMs: number;
  /** Its final transcript came before its end. */
  transcribed: boolean;
}

/** A barge-in whose words have not been heard yet: the reply is held, not aborted. */
export interface Interruption {
  /** When the user's speech started: the interruption latency counts from here. */
  speechStartedAtMs: number;
  atMs: number;
  /** The state the reply was in. */
  from: 'thinking' | 'speaking' | 'tool_running';
  /** The first sentence not fully played: a false interruption resumes here. */
  sentence: number;
  /** No words by then (the user silent and no transcript due): a false interruption. */
  deadlineMs: number;
  /** The words heard were only a backchannel ("mm-hm"): once the user is silent, the reply goes on where it stopped. */
  backchannel?: string;
}

/** Which of the barge-in detector's rules confirmed an onset: Silero on the cleaned audio, or the double-talk path. */
export type OnsetRule = 'cleaned' | 'double_talk';

/** What stopped a reply: the user's voice over it, POST /interrupt, or the interrupt key. */
export type InterruptionSource = 'barge_in' | 'api' | 'key';

export interface DuplexState {
  activity: ActivityState;
  /** Turns started so far; the next turn's id ends in turnSeq + 1. */
  turnSeq: number;
  turn: TurnState | null;
  speech: Speech | null;
  /** Ended utterances whose final transcript has not come: a transcript takes the oldest. */
  pendingTranscripts: number;
  interruption: Interruption | null;
  /** Tools of aborted turns still running: their results are dropped, never spoken. */
  orphanTools: Array<{ turnId: string; callId: string }>;
  /** A transcript that came during recovery: the next input once recovered. */
  pendingInput: string | null;
  recoveryDeadlineMs: number | null;
  /** A fatal error happened: every later input is ignored. */
  halted: boolean;
}

export function initialDuplexState(): DuplexState {
  return {
    activity: 'idle',
    turnSeq: 0,
    turn: null,
    speech: null,
    pendingTranscripts: 0,
    interruption: null,
    orphanTools: [],
    pendingInput: null,
    recoveryDeadlineMs: null,
    halted: false,
  };
}

/**
 * What the runtime tells the state machine. Inputs about a reply carry its
 * turn id; one that names another turn (an aborted one) is ignored.
 * Per VAD utterance the runtime sends speech_started, speech_ended and one
 * final transcript (transcript_final or transcript_empty), in that order;
 * utterances do not overlap, though a transcript may come after the next
 * utterance has started.
 */
export type DuplexInput =
  /**
   * Speech the barge-in detector confirmed (BargeInRule: the one place that weighs scores, thresholds and runs, over
   * playback or not). Taken as decided: during a reply it stops playback at once. `startedAtMs`: the first window of the
   * run that confirmed it (defaults to now), where the interruption latency counts from.
   */
  | { type: 'speech_started'; startedAtMs?: number }
  | { type: 'speech_ended' }
  | { type: 'transcript_partial'; text: string }
  /** Blank or punctuation-only text counts as `transcript_empty`. `language`: the recognizer's, when it says (picks the backchannel list). */
  | { type: 'transcript_final'; text: string; language?: string }
  /** STT heard nothing usable (empty, or below its confidence threshold). */
  | { type: 'transcript_empty' }
  /** The first audio chunk of a sentence reached the speaker. */
  | { type: 'sentence_started'; turnId: string; sentence: number }
  /** A sentence's last chunk has played. */
  | { type: 'sentence_played'; turnId: string; sentence: number }
  /** The LLM's reply is complete: `sentences` in all. */
  | { type: 'llm_finished'; turnId: string; sentences: number }
  | { type: 'tool_started'; turnId: string; callId: string; cancellable: boolean }
  /** Returned, rejected, cancelled or failed: `status` says which. */
  | { type: 'tool_ended'; turnId: string; callId: string; status: ToolCallStatus }
  /** An interruption not from the microphone (a key, POST /interrupt): no threshold, no false-interruption wait. */
  | { type: 'interrupt_requested'; source: 'api' | 'key' }
  | { type: 'timer_fired'; timer: DuplexTimer }
  | { type: 'error'; code: string; recoverable: boolean; turnId?: string }
  /** Cleanup after an error has finished (cancelled tasks settled, devices reopened). */
  | { type: 'recovery_done' };

export type DuplexInputType = DuplexInput['type'];

/** What the state machine asks the runtime to do, in order. */
export type DuplexEffect =
  /** Emit on the bus as is: every transition has one. */
  | { type: 'state_changed'; event: StateChangedEvent }
  /** Start a turn with this text as the user's input: a fresh AbortController for LLM, tools and TTS. */
  | { type: 'start_turn'; turnId: string; text: string }
  /** Valid user speech during a reply; the runtime records latency from `speechStartedAtMs` to playback stop. */
  | { type: 'interrupt_detected'; turnId: string; speechStartedAtMs: number; source: InterruptionSource; atMs: number }
  /** Stop at the next chunk boundary, drop unplayed chunks, play nothing more of this turn until resumed. */
  | { type: 'stop_playback'; turnId: string }
  /** A false interruption: play the turn again from the start of this sentence. */
  | { type: 'resume_from_sentence'; turnId: string; sentence: number }
  /** The interruption was only a backchannel (`words`): play on from where the stop left it, in `sentence`. */
  | { type: 'continue_playback'; turnId: string; sentence: number; words: string }
  /** Abort the turn's AbortController (LLM, TTS, cancellable tools); `leaveRunning` are tools that cannot be cancelled. */
  | { type: 'abort_turn'; turnId: string; reason: 'interrupted' | 'error' | 'fatal'; leaveRunning: string[] }
  /** Only the first `sentences` sentences were played: only they go to history and memory. */
  | { type: 'commit_played'; turnId: string; sentences: number; complete: boolean }
  /** A tool of an aborted turn finished: keep its result out of the LLM and out of speech. */
  | { type: 'discard_tool_result'; turnId: string; callId: string; status: ToolCallStatus }
  | { type: 'set_timer'; timer: DuplexTimer; atMs: number }
  /** A non-recoverable error: the runtime shuts the duplex loop down with this code. */
  | { type: 'fatal'; code: string };

export type DuplexEffectType = DuplexEffect['type'];

export interface DuplexStep {
  state: DuplexState;
  effects: DuplexEffect[];
}
