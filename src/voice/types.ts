/**
 * The voice's engines, as interfaces: audio in and out, voice activity
 * detection, speech to text, text to speech. A provider implements one of
 * them and nothing else. Audio inside the voice is always 16 kHz mono
 * 16-bit PCM; providers convert at their edges.
 */

export const SAMPLE_RATE = 16_000;
/** One capture frame: 20 ms. Counting frames, not wall time, makes the same audio give the same segments. */
export const FRAME_MS = 20;
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000;

/** A frame of captured audio. */
export interface AudioFrame {
  /** FRAME_SAMPLES samples (the last frame of a file may be shorter). */
  samples: Int16Array;
  /** Frame number since the input started: frame n starts at n * FRAME_MS of audio. */
  index: number;
  /** When the frame's first sample was captured, in ms on the input's clock. */
  atMs: number;
}

/** A source of audio: a microphone, a WAV file, silence. */
export interface AudioInput {
  readonly name: string;
  /** Frames until the input ends (a file) or `signal` aborts (a device). */
  frames(options?: { signal?: AbortSignal }): AsyncIterable<AudioFrame>;
  close(): Promise<void>;
}

/** A sink for audio: speakers, a WAV file, nothing. */
export interface AudioOutput {
  readonly name: string;
  /** Queues a chunk; resolves once it is handed to the device (not when it has been heard). */
  write(samples: Int16Array): Promise<void>;
  /** Resolves when everything queued has played. */
  drain(): Promise<void>;
  /** Drops what is queued and not yet played (an interruption). */
  clear(): void;
  close(): Promise<void>;
}

/** Speech probability per frame. */
export interface Vad {
  /** Samples the model takes per call (Silero v5 at 16 kHz: 512). */
  readonly frameSamples: number;
  /** The probability (0..1) that `samples` (frameSamples long) hold speech. */
  probability(samples: Int16Array): Promise<number>;
  /** Forgets the model's state, between utterances. */
  reset(): void;
  close(): Promise<void>;
}

/** What recognition heard. */
export interface Transcript {
  text: string;
  /** `true` for the final result of an utterance; partial ones may change. */
  final: boolean;
  /** The language the engine detected, when it does (ISO 639-1). */
  language?: string;
  /** 0..1 where the engine gives one. */
  confidence?: number;
}

/** Speech to text of a whole utterance at once (a batch engine): partial results (if the engine makes them), then one final. */
export interface Stt {
  readonly name: string;
  transcribe(audio: Int16Array, options?: { signal?: AbortSignal; language?: string }): AsyncIterable<Transcript>;
  close(): Promise<void>;
}

/** What recognition makes of an utterance while it is still being spoken. */
export interface PartialTranscript {
  text: string;
  /** The leading words the engine is unlikely to change any more ('' until there are some). */
  stable: string;
  /** Milliseconds of the utterance's audio (pre-roll included) the partial covers. */
  audioMs: number;
}

/** Timers on the caller's clock (the audio clock in full duplex), for engines that decode on a timer. */
export interface SessionTimers {
  set(fire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface RecognitionOptions {
  signal?: AbortSignal;
  /** The expected language, for engines that take one. */
  language?: string;
  timers?: SessionTimers;
}

/**
 * The recognition of one utterance, fed as it is captured: partials while
 * it lasts, one final transcript at the end. Only the final reaches the LLM.
 */
export interface RecognitionSession {
  /** More of the utterance: the pre-roll at once, then 20 ms frames as they arrive. */
  push(samples: Int16Array): void;
  /** Partial transcripts in order; returns the unsubscribe function. */
  onPartial(listener: (partial: PartialTranscript) => void): () => void;
  /** The utterance ended: its final transcript. Rejects with STT_CANCELLED after `cancel`. */
  finish(): Promise<Transcript>;
  /** Drops the utterance (a barge-in that came to nothing, a cancelled turn); idempotent. */
  cancel(): void;
  /**
   * Whether the words so far make a finished sentence (the language model expects it to end
   * there, or a grammar sentence is complete) that has stood unchanged for `holdMs` of audio.
   * Engines that cannot tell leave it out.
   */
  sentenceComplete?(holdMs: number): boolean;
  /** The decoder's words so far (the newest hypothesis); engines that keep none leave it out. */
  hypothesis?(): string;
  /** Audio pushed but not decoded yet, ms: what the final transcript must still wait for. */
  backlogMs?(): number;
}

/** Streaming speech to text: every engine the voice uses, resident or batch behind an adapter. */
export interface StreamingStt {
  readonly name: string;
  /** Opens one utterance's recognition. An engine with one decoder serves them one after another, in order. */
  startUtterance(options?: RecognitionOptions): RecognitionSession;
  close(): Promise<void>;
}

/** Text to speech: audio chunks of one sentence, the first as soon as it exists. */
export interface Tts {
  readonly name: string;
  /** 16 kHz mono chunks of the spoken `text`, in the voice for `language` (a `[voice.<lang>]` key). */
  synthesize(text: string, options: { language: string; signal?: AbortSignal }): AsyncIterable<Int16Array>;
  close(): Promise<void>;
}
