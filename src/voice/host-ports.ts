/**
 * What the voice needs from the assistant it speaks for, in the voice's own
 * terms: a conversation to take its turns, a channel to ask the user before
 * a tool runs. The host's Conversation and confirmation channels have these
 * shapes (they are checked where the daemon hands them over); the voice
 * never imports the host.
 */
import type { AppError } from '../errors/index.js';
import type { ConfirmationChannel } from '../confirmation/index.js';

/** Asking the user before a tool runs: the one contract the host's router uses too. */
export { noConfirmationChannel, type ConfirmationAnswer, type ConfirmationChannel, type ConfirmationRequest } from '../confirmation/index.js';

export interface SpokenTurnOptions {
  entry: 'voice';
  turnId?: string;
  confirmation: ConfirmationChannel;
  signal?: AbortSignal;
  /** The question's language, as recognition heard it. */
  language?: string;
  /** Each sentence of the reply as soon as it is complete. */
  onSentence?: (sentence: string) => void;
  onAnnouncement?: (phrase: string) => void;
  /** 'by_caller': the reply goes to history through `commit`, with what the user heard. */
  commit?: 'at_end' | 'by_caller';
  /** A reply asked for ahead of the turn (`speculate`): the conversation takes it for the same question, else discards it. */
  speculation?: SpeculativeReply;
}

/** A reply asked for before the user's turn ended (preemptive generation): nothing of it is heard unless its turn takes it. */
export interface SpeculativeReply {
  readonly id: string;
  /** The question it was asked with. */
  readonly text: string;
  /** The reply's first segment once written; undefined when none will come. */
  readonly firstSentence: Promise<string | undefined>;
}

export interface SpokenTurnOutcome {
  turnId: string;
  reply: string;
  sentences: string[];
  status: 'ok' | 'error' | 'cancelled';
  error?: AppError;
}

/** The conversation the voice's turns belong to (the same one as the chat and the HTTP API). */
export interface VoiceConversation {
  turn(text: string, options: SpokenTurnOptions): Promise<SpokenTurnOutcome>;
  /** Puts a question and the part of its reply that was said into the history. */
  commit(question: string, sentences: readonly string[]): void;
  /** A head start on the turn's memory recall while the user is still speaking. */
  anticipate(text: string): void;
  /** Preemptive generation: the first round's request sent now, for words that look like a finished question. */
  speculate?(text: string): SpeculativeReply;
  /** Cancels a speculative reply (idempotent), saying why. */
  discardSpeculation?(reply: SpeculativeReply, reason: string): void;
}

/** The room as the full-duplex voice measured it at start-up: the test chirp's echo, and what it means for barge-in. */
export interface RoomReport {
  /** The chirp was found at the microphone. */
  heard: boolean;
  /** From the first sample played to its echo at the microphone, ms. */
  delayMs?: number;
  /** The echo's level against what was played, dB. */
  echoDb?: number;
  /** The microphone's steady level with nothing playing, dBFS. */
  noiseDbfs: number;
  /** How well the chirp matched (0..1). */
  match: number;
  /** What makes barge-in unreliable in this room; empty when nothing does. */
  problems: string[];
}

/** The voice as the HTTP API and the triggers drive it: `POST /listen/start` and `/listen/stop`, `POST /interrupt`. */
export interface VoiceControl {
  /** Starts a recording (it ends at the end of speech or at stop); false when one is already going or a reply is under way. */
  startListening(trigger: 'http' | 'switch' | 'key'): boolean;
  /** Ends the recording now; false when none was going. */
  stopListening(): boolean;
  readonly listening: boolean;
  /** Absent: turn-based. */
  readonly mode?: 'turn_based' | 'full_duplex_agent';
  /** Cuts the spoken reply off now (full duplex); false when nothing was being said or done. */
  interrupt?(): boolean;
  /** Full duplex: the room as measured at start-up (`[duplex] calibrate`). */
  readonly room?: RoomReport;
  /** The sound devices that are gone now (the sound server stopped, a headset unplugged); empty or absent when none is. */
  readonly missing?: readonly MissingDevice[];
}

/** A sound device the voice lost and is trying to open again. */
export interface MissingDevice {
  device: 'input' | 'output';
  /** What is missing and why, in words, for `/state` and the page. */
  message: string;
  /** When it went missing (ms since the epoch). */
  sinceMs: number;
}
