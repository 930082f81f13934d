import { randomUUID } from 'node:crypto';
import { isAppError, messageOf } from '../../errors/index.js';
import { clip, type AssistantBus, type VoiceTrigger } from '../../events/index.js';
import type { ConfirmationChannel, SpokenTurnOutcome, VoiceConversation } from '../host-ports.js';
import type { AudioFrame, AudioInput, RecognitionSession, StreamingStt, Transcript } from '../types.js';
import type { WordsVerdict } from '../vad/index.js';
import { SAMPLE_RATE } from '../types.js';
import { wordsVerdict } from './end-of-turn.js';
import { Preemption } from './preemption.js';
import type { Speaker } from './speaker.js';

/** Where an utterance starts and ends in a stream of frames (the VAD's endpointer). */
export interface UtteranceDetector {
  /** The events this frame completes. */
  push(frame: AudioFrame): Promise<DetectorEvent[]>;
  /** The input ended or the recording was stopped: an utterance still open ends here. */
  flush(): Promise<DetectorEvent[]>;
  reset(): void;
  /**
   * Lets the words recognized so far end an utterance sooner, or later (see
   * `Endpointer.setEndCheck`): `holdMs` is the shorter silence, `silenceMs` the silence so far,
   * the verdict the recognizer's.
   */
  setEndCheck?(check: ((holdMs: number, silenceMs: number) => WordsVerdict) | undefined): void;
  /** Told the silence so far (0: voiced) after each window of an utterance under way (see `Endpointer.setPauseListener`). */
  setPauseListener?(listener: ((silenceMs: number) => void) | undefined): void;
}

/** What ended an utterance: see the `voice.speech` event's `endRule`. */
export type EndRule = 'complete' | 'silence' | 'stopped';

/** `start` carries the utterance so far (its pre-roll), `end` the whole utterance, what ended it and the silence it waited. */
export type DetectorEvent = { type: 'start'; frame: number; samples: Int16Array } | { type: 'end'; frame: number; samples: Int16Array; rule?: EndRule; silenceMs?: number };

/** An utterance the VAD cut, and its recognition, fed while it was spoken; `answer` finishes it. */
export interface HeardUtterance {
  samples: Int16Array;
  recognition: RecognitionSession;
  /** The reply asked for while the user paused, if any (preemptive generation). */
  preemption?: Preemption;
}

/** Decides whether a final transcript is worth a turn: why not, when not. */
export type TranscriptCheck = (transcript: Transcript) => string | undefined;

export interface VoiceSessionOptions {
  input: AudioInput;
  detector: UtteranceDetector;
  stt: StreamingStt;
  speaker: Speaker;
  conversation: VoiceConversation;
  bus: AssistantBus;
  checkTranscript: TranscriptCheck;
  /** The `[voice.<lang>]` keys: what a sentence may be spoken in. */
  languages: readonly string[];
  /** The language when the engine does not detect one. */
  defaultLanguage: string;
  /** How the router asks the user during a voice turn. */
  confirmation: ConfirmationChannel;
  /** Picks a sentence's language for the voice (the predecessor decided per sentence). */
  sentenceLanguage: (sentence: string, fallback: string) => string;
  /**
   * Preemptive generation: the silence (ms) after which words that look like a finished
   * question are sent to the LLM before the turn ends; undefined = off.
   */
  preemptivePauseMs?: number;
  clock?: () => number;
}

/** Wall-clock milliseconds (the session's clock) at each stage of one voice turn. */
export interface VoiceTurnTimings {
  speechEndMs: number;
  sttFinalMs: number;
  firstAudioMs?: number;
  doneMs: number;
}

export interface VoiceTurnResult {
  transcript: Transcript;
  /** Why the transcript did not make a turn, when it did not. */
  dropped?: string;
  outcome?: SpokenTurnOutcome;
  timings: VoiceTurnTimings;
}

/**
 * Turn-based talking: a recording (a trigger's start to its stop, or to the
 * end of speech the VAD finds, whichever comes first; or each utterance of
 * a file) is transcribed, a transcript worth answering becomes a
 * conversation turn, and the reply is spoken sentence by sentence while the
 * LLM still writes the rest. Empty or unsure transcripts never reach the LLM.
 */
export class VoiceSession {
  private readonly clock: () => number;
  private turnLanguage: string;

  constructor(private readonly options: VoiceSessionOptions) {
    this.clock = options.clock ?? Date.now;
    this.turnLanguage = options.defaultLanguage;
  }

  /** The language of the turn under way (or the last one): a spoken question mid-turn is asked in it. */
  get language(): string {
    return this.turnLanguage;
  }

  /** Every utterance of the input, each answered before the next is read (`run --input`). */
  async answerAll(trigger: VoiceTrigger, signal?: AbortSignal): Promise<VoiceTurnResult[]> {
    const results: VoiceTurnResult[] = [];
    this.emitListening(trigger);
    const { detector } = this.options;
    detector.reset();
    const utterances = new UtteranceRecognition(this, detector, true, signal);
    try {
      for await (const frame of this.options.input.frames({ signal })) {
        for (const heard of utterances.frame(frame.samples, await detector.push(frame))) results.push(await this.answer(heard, signal));
      }
      for (const heard of utterances.frame(undefined, await detector.flush())) results.push(await this.answer(heard, signal));
    } finally {
      utterances.cancel();
    }
    return results;
  }

  /**
   * One recording: frames from now until the VAD hears the end of an
   * utterance, or `stop` aborts (then what was said so far is the
   * utterance); undefined when nobody spoke.
   */
  async listenOnce(trigger: VoiceTrigger, stop: AbortSignal): Promise<HeardUtterance | undefined> {
    this.emitListening(trigger);
    const { detector } = this.options;
    detector.reset();
    // A spoken confirmation's answer ("yes") is not a question to ask ahead.
    const utterances = new UtteranceRecognition(this, detector, trigger !== 'answer');
    try {
      try {
        for await (const frame of this.options.input.frames({ signal: stop })) {
          const [heard] = utterances.frame(frame.samples, await detector.push(frame));
          if (heard) return heard;
        }
      } catch (error) {
        if (!stop.aborted) throw error;
      }
      return utterances.frame(undefined, await detector.flush())[0];
    } finally {
      utterances.cancel();
    }
  }

  /** Finishes an utterance's recognition and, when the transcript is worth it, answers it aloud. */
  async answer(heard: HeardUtterance, signal?: AbortSignal): Promise<VoiceTurnResult> {
    const speechEndMs = this.clock();
    const backlogMs = heard.recognition.backlogMs?.();
    const transcript = await this.finalTranscript(heard.recognition);
    const sttFinalMs = this.clock();
    const dropped = this.options.checkTranscript(transcript);
    if (dropped) heard.preemption?.discard('the transcript was dropped');
    const speculation = dropped ? undefined : heard.preemption?.take(transcript.text);
    this.options.bus.emit({
      type: 'voice.transcript',
      stage: 'stt',
      text: clip(transcript.text),
      final: true,
      ...(transcript.language ? { language: transcript.language } : {}),
      ...(dropped ? { dropped } : {}),
      durationMs: sttFinalMs - speechEndMs,
      ...(backlogMs === undefined ? {} : { backlogMs: Math.round(backlogMs) }),
      atMs: sttFinalMs,
    });
    if (dropped) return { transcript, dropped, timings: { speechEndMs, sttFinalMs, doneMs: this.clock() } };

    const language = this.languageOf(transcript);
    this.turnLanguage = language;
    const { speaker } = this.options;
    const turnId = randomUUID();
    const speak = (text: string): void => {
      // say() never rejects: a sentence that fails is an error event on the bus, and the reply goes on.
      void speaker.say(text, this.options.sentenceLanguage(text, language), turnId, signal);
    };
    const outcome = await this.options.conversation.turn(transcript.text, {
      entry: 'voice',
      turnId,
      language,
      confirmation: this.options.confirmation,
      signal,
      onSentence: speak,
      onAnnouncement: speak,
      ...(speculation ? { speculation } : {}),
    });
    // One drain: a device's drain waits for its own latency after the last chunk.
    const { firstAudioMs } = await speaker.finish(outcome.turnId);
    return { transcript, outcome, timings: { speechEndMs, sttFinalMs, ...(firstAudioMs === undefined ? {} : { firstAudioMs }), doneMs: this.clock() } };
  }

  /**
   * Opens the recognition of an utterance that just started, fed its pre-roll; its partials go
   * on the bus, and to the conversation, which recalls memories for them while the user speaks.
   */
  startRecognition(preroll: Int16Array, signal?: AbortSignal): RecognitionSession {
    const recognition = this.options.stt.startUtterance({ language: this.turnLanguage, ...(signal ? { signal } : {}) });
    recognition.onPartial((partial) => {
      this.options.bus.emit({ type: 'voice.transcript', stage: 'stt', text: clip(partial.text), stable: clip(partial.stable), final: false, atMs: this.clock() });
      this.options.conversation.anticipate(partial.text);
    });
    recognition.push(preroll);
    return recognition;
  }

  /** Reports a detector event on the bus. */
  emitSpeech(event: DetectorEvent): void {
    const ended =
      event.type === 'end'
        ? { durationMs: Math.round((event.samples.length / SAMPLE_RATE) * 1000), ...(event.rule ? { endRule: event.rule } : {}), ...(event.silenceMs === undefined ? {} : { silenceMs: event.silenceMs }) }
        : {};
    this.options.bus.emit({ type: 'voice.speech', stage: 'vad', phase: event.type, frame: event.frame, ...ended, atMs: this.clock() });
  }

  /** Preemptive generation for an utterance that just started; undefined when it is off. */
  newPreemption(): Preemption | undefined {
    const { preemptivePauseMs, conversation, speaker, sentenceLanguage } = this.options;
    if (preemptivePauseMs === undefined || !conversation.speculate) return undefined;
    return new Preemption({ conversation, speaker, pauseMs: preemptivePauseMs, language: this.turnLanguage, sentenceLanguage });
  }

  private async finalTranscript(recognition: RecognitionSession): Promise<Transcript> {
    try {
      return await recognition.finish();
    } catch (error) {
      const code = isAppError(error) ? error.code : 'STT_FAILED';
      this.options.bus.emit({ type: 'error', stage: 'stt', code, message: messageOf(error), recoverable: true, atMs: this.clock() });
      return { text: '', final: true };
    }
  }

  private languageOf(transcript: Transcript): string {
    const detected = transcript.language;
    return detected && this.options.languages.includes(detected) ? detected : this.options.defaultLanguage;
  }

  private emitListening(trigger: VoiceTrigger): void {
    this.options.bus.emit({ type: 'voice.listening', stage: 'voice', trigger, atMs: this.clock() });
  }

}

/**
 * The frames of one stream of detector events, as recognitions: opened at
 * an utterance's start with its pre-roll, fed every frame after it, handed
 * out at its end.
 */
class UtteranceRecognition {
  private open: RecognitionSession | undefined;
  private preemption: Preemption | undefined;

  constructor(
    private readonly session: VoiceSession,
    private readonly detector: UtteranceDetector,
    private readonly askAhead: boolean,
    private readonly signal?: AbortSignal,
  ) {}

  /** A frame (already pushed to the detector) and the events it completed; the utterances that ended. */
  frame(samples: Int16Array | undefined, events: readonly DetectorEvent[]): HeardUtterance[] {
    // A start event's pre-roll already holds this frame.
    if (samples && this.open) this.open.push(samples);
    const heard: HeardUtterance[] = [];
    for (const event of events) {
      this.session.emitSpeech(event);
      if (event.type === 'start') {
        this.drop();
        const recognition = this.session.startRecognition(event.samples, this.signal);
        this.open = recognition;
        const language = this.session.language;
        this.detector.setEndCheck?.((holdMs, silenceMs) => wordsVerdict(recognition, { holdMs, silenceMs }, language));
        const preemption = this.askAhead ? this.session.newPreemption() : undefined;
        this.preemption = preemption;
        if (preemption) this.detector.setPauseListener?.((silenceMs) => preemption.pause(silenceMs, recognition));
      } else {
        // An end without a start (the stream began mid-utterance): the whole utterance at once.
        const recognition = this.open ?? this.session.startRecognition(event.samples, this.signal);
        const preemption = this.preemption;
        this.open = undefined;
        this.preemption = undefined;
        this.detector.setEndCheck?.(undefined);
        this.detector.setPauseListener?.(undefined);
        heard.push({ samples: event.samples, recognition, ...(preemption ? { preemption } : {}) });
      }
    }
    return heard;
  }

  /** An utterance still open (the input ended or failed mid-way) is dropped. */
  cancel(): void {
    this.drop();
    this.detector.setEndCheck?.(undefined);
    this.detector.setPauseListener?.(undefined);
  }

  private drop(): void {
    this.open?.cancel();
    this.open = undefined;
    this.preemption?.discard('the utterance was dropped');
    this.preemption = undefined;
  }
}
