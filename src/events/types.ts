/**
 * The events of the assistant: one discriminated union that the terminal
 * reporter, the HTTP event stream, the web page and the tests all read.
 * Payloads are sanitized before they are built: no secrets, no raw audio,
 * text fields truncated (see `clip`).
 */

/** Where a turn or a tool call came in. */
export type EntryPoint = 'voice' | 'text' | 'http' | 'mcp';
export type Risk = 'read' | 'write' | 'high';
export type Decision = 'allow' | 'confirm' | 'deny';
export type DecidedBy = 'policy' | 'user' | 'timeout' | 'channel';
export type ToolCallStatus = 'ok' | 'error' | 'timeout' | 'cancelled' | 'refused' | 'budget' | 'invalid';

interface Base {
  /** Milliseconds since the epoch, from the injected clock. */
  atMs: number;
  turnId?: string;
}

/** What starts a recording: the microphone's mute switch, the HTTP API, a key in `chat --voice`, a file (`run --input`), or a spoken confirmation's question (`answer`). */
export type VoiceTrigger = 'switch' | 'http' | 'key' | 'file' | 'answer';

/** What the assistant is doing; the full-duplex voice adds interrupted and recovering. */
/** What ended a spoken turn: a complete sentence after a short silence, the whole silence, or the recording's stop. */
export type EndOfTurnRule = 'complete' | 'silence' | 'stopped';

export type ActivityState = 'idle' | 'listening' | 'thinking' | 'speaking' | 'interrupted' | 'tool_running' | 'recovering';

export type AssistantEvent =
  | (Base & { type: 'turn.started'; stage: 'conversation'; entry: EntryPoint; text: string })
  | (Base & { type: 'turn.ended'; stage: 'conversation'; reply: string; status: 'ok' | 'error' | 'cancelled'; durationMs: number })
  | (Base & { type: 'llm.request'; stage: 'llm'; round: number; withTools: boolean })
  | (Base & { type: 'llm.delta'; stage: 'llm'; text: string })
  | (Base & { type: 'llm.sentence'; stage: 'llm'; text: string })
  | (Base & { type: 'llm.first_token'; stage: 'llm'; latencyMs: number })
  /**
   * Preemptive generation: a request sent for the words heard so far while the user pauses (`started`),
   * then taken for the turn when the final transcript is the same question (`used`), or cancelled
   * (`discarded`, with why and the reply pieces the LLM had streamed for nothing). Nothing of it is heard before `used`.
   */
  | (Base & { type: 'llm.speculation'; stage: 'llm'; phase: 'started' | 'used' | 'discarded'; speculationId: string; text: string; reason?: string; wastedPieces?: number })
  | (Base & { type: 'announcement'; stage: 'conversation'; text: string; tool: string })
  | (Base & { type: 'tool.started'; stage: 'tool'; callId: string; tool: string; server: string; entry: EntryPoint; argsSummary: string; cancellable: boolean })
  | (Base & { type: 'tool.decision'; stage: 'tool'; callId: string; tool: string; risk: Risk; decision: Decision; decidedBy: DecidedBy; approved: boolean })
  | (Base & { type: 'tool.confirmation_requested'; stage: 'tool'; callId: string; tool: string; risk: Risk; argsSummary: string; reason?: string })
  | (Base & { type: 'tool.ended'; stage: 'tool'; callId: string; tool: string; status: ToolCallStatus; durationMs: number; outputChars: number; truncated: boolean })
  | (Base & { type: 'server.state'; stage: 'hub'; server: string; state: 'starting' | 'ready' | 'restarting' | 'failed' | 'stopped'; detail?: string })
  | (Base & { type: 'tools.changed'; stage: 'hub'; count: number })
  /** Long work in a built-in server (the memory's re-embedding and index build): records done of total, the rate, seconds left (null: not known yet). */
  | (Base & { type: 'progress'; stage: 'hub'; server: string; task: string; done: number; total: number; ratePerS: number; remainingS: number | null })
  | (Base & { type: 'voice.listening'; stage: 'voice'; trigger: VoiceTrigger })
  /** `rule` (full duplex): what confirmed the speech, Silero on the echo-cancelled audio or the double-talk check. */
  /**
   * `rule` (full duplex): what confirmed the speech, Silero on the echo-cancelled audio or the double-talk check.
   * `endRule` (phase end): what ended the turn, a complete sentence after a short silence (`complete`), the whole
   * silence (`silence`), or the recording's stop (`stopped`); `silenceMs` the silence it waited.
   */
  | (Base & { type: 'voice.speech'; stage: 'vad'; phase: 'start' | 'end'; frame: number; durationMs?: number; rule?: 'cleaned' | 'double_talk'; endRule?: EndOfTurnRule; silenceMs?: number })
  /**
   * `final: false` is a partial (never sent to the LLM); `stable` its leading words two decodes agreed on.
   * `backlogMs` (final): audio the decoder had still to decode when the utterance ended.
   */
  | (Base & { type: 'voice.transcript'; stage: 'stt'; text: string; final: boolean; stable?: string; language?: string; dropped?: string; durationMs?: number; backlogMs?: number })
  /** `queued`: a reply's first sentence is waiting for speech synthesis (turn-based); `started`: its first audio; `ended`: all of it played. */
  | (Base & { type: 'voice.playback'; stage: 'tts'; phase: 'queued' | 'started' | 'ended' })
  /** Full duplex: a reply stopped. `source`: the user's voice over it (barge_in; latency from the speech's start), POST /interrupt (api) or the key. */
  | (Base & { type: 'voice.interrupted'; stage: 'voice'; source: 'barge_in' | 'api' | 'key'; speechStartedAtMs: number; latencyMs: number })
  /**
   * Full duplex: the reply goes on after an interruption. Without `backchannel`, it held no words and the reply
   * plays again from the start of `sentence`; with it, its words were only that ("mm-hm", `[duplex] backchannels`,
   * clipped) and the reply goes on in `sentence` from where it stopped, with no new turn.
   */
  | (Base & { type: 'voice.resumed'; stage: 'voice'; sentence: number; backchannel?: string })
  /** The LLM server stopped answering (requests fail; it is probed until it answers) or answers again. */
  | (Base & { type: 'llm.server'; stage: 'llm'; status: 'lost' | 'restored'; url: string; message: string; missingMs?: number })
  /** A sound device went missing (the voice refuses to listen and tries to open it again) or came back. */
  | (Base & { type: 'voice.device'; stage: 'voice'; device: 'input' | 'output'; status: 'lost' | 'restored'; message: string })
  /** Full duplex, at start-up (`[duplex] calibrate`): the test chirp's echo. `problems`: what makes barge-in unreliable here. */
  | (Base & { type: 'voice.room'; stage: 'voice'; heard: boolean; delayMs?: number; echoDb?: number; noiseDbfs: number; match: number; problems: string[] })
  | (Base & {
      type: 'audio.buffer_overrun';
      stage: 'audio';
      buffer: 'capture' | 'render';
      dropped: number;
      fromFrameId: number;
      toFrameId: number;
      /** On the audio clock, not the epoch. */
      fromMs: number;
      toMs: number;
      droppedMs: number;
      totalDropped: number;
      capacity: number;
    })
  | (Base & {
      type: 'audio.reference_drift';
      stage: 'audio';
      phase: 'detected' | 'recovered';
      driftPpm: number;
      driftMsPerS: number;
      tolerancePpm: number;
      windowMs: number;
      lowerInterruptionConfidence: boolean;
    })
  | (Base & { type: 'memory.recalled'; stage: 'conversation'; ids: number[]; durationMs: number })
  | (Base & { type: 'state.changed'; stage: 'conversation'; state: ActivityState; previous: ActivityState })
  /** `code`: one of ERROR_CODES from the project's own stages; the wire format carries any string (a server's, a test's). */
  | (Base & { type: 'error'; stage: string; code: string; message: string; recoverable: boolean });

export type AssistantEventType = AssistantEvent['type'];

/** Characters of free text (transcripts, replies, tool output) an event carries. */
export const EVENT_TEXT_LIMIT = 500;

/** Truncates free text for an event payload, with a visible mark. */
export function clip(text: string, limit = EVENT_TEXT_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}... [${text.length - limit} more]`;
}
