import { randomUUID } from 'node:crypto';
import { AppError, isAppError, messageOf } from '../../errors/index.js';
import { clip, type AssistantBus, type VoiceTrigger } from '../../events/index.js';
import type { Conversation, TurnOutcome } from '../../host/conversation/index.js';
import type { ConfirmationChannel } from '../../host/router/index.js';
import type { AudioFrame, AudioInput, Stt, Transcript } from '../types.js';
import { SAMPLE_RATE } from '../types.js';
import type { Speaker } from './speaker.js';

/** Where an utterance starts and ends in a stream of frames (the VAD's endpointer). */
export interface UtteranceDetector {
  /** The events this frame completes. */
  push(frame: AudioFrame): Promise<DetectorEvent[]>;
  /** The input ended or the recording was stopped: an utterance still open ends here. */
  flush(): Promise<DetectorEvent[]>;
  reset(): void;
}

export type DetectorEvent = { type: 'start'; frame: number } | { type: 'end'; frame: number; samples: Int16Array };

/** Decides whether a final transcript is worth a turn: why not, when not. */
export type TranscriptCheck = (transcript: Transcript) => string | undefined;

export interface VoiceSessionOptions {
  input: AudioInput;
  detector: UtteranceDetector;
  stt: Stt;
  speaker: Speaker;
  conversation: Conversation;
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
  outcome?: TurnOutcome;
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
    for await (const frame of this.options.input.frames({ signal })) {
      for (const event of await detector.push(frame)) {
        const result = await this.onDetectorEvent(event, signal);
        if (result) results.push(result);
      }
    }
    for (const event of await detector.flush()) {
      const result = await this.onDetectorEvent(event, signal);
      if (result) results.push(result);
    }
    return results;
  }

  /**
   * One recording: frames from now until the VAD hears the end of an
   * utterance, or `stop` aborts (then what was said so far is the
   * utterance); the samples, or undefined when nobody spoke.
   */
  async listenOnce(trigger: VoiceTrigger, stop: AbortSignal): Promise<Int16Array | undefined> {
    this.emitListening(trigger);
    const { detector } = this.options;
    detector.reset();
    try {
      for await (const frame of this.options.input.frames({ signal: stop })) {
        for (const event of await detector.push(frame)) {
          this.emitSpeech(event);
          if (event.type === 'end') return event.samples;
        }
      }
    } catch (error) {
      if (!stop.aborted) throw error;
    }
    const ended = (await detector.flush()).find((e): e is Extract<DetectorEvent, { type: 'end' }> => e.type === 'end');
    if (ended) this.emitSpeech(ended);
    return ended?.samples;
  }

  /** Transcribes an utterance and, when it is worth it, answers it aloud. */
  async answer(samples: Int16Array, signal?: AbortSignal): Promise<VoiceTurnResult> {
    const speechEndMs = this.clock();
    const transcript = await this.transcribe(samples, signal);
    const sttFinalMs = this.clock();
    const dropped = this.options.checkTranscript(transcript);
    this.options.bus.emit({
      type: 'voice.transcript',
      stage: 'stt',
      text: clip(transcript.text),
      final: true,
      ...(transcript.language ? { language: transcript.language } : {}),
      ...(dropped ? { dropped } : {}),
      durationMs: sttFinalMs - speechEndMs,
      atMs: sttFinalMs,
    });
    if (dropped) return { transcript, dropped, timings: { speechEndMs, sttFinalMs, doneMs: this.clock() } };

    const language = this.languageOf(transcript);
    this.turnLanguage = language;
    const { speaker } = this.options;
    const turnId = randomUUID();
    const speak = (text: string): void => {
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
    });
    // One drain: a device's drain waits for its own latency after the last chunk.
    const { firstAudioMs } = await speaker.finish(outcome.turnId);
    return { transcript, outcome, timings: { speechEndMs, sttFinalMs, ...(firstAudioMs === undefined ? {} : { firstAudioMs }), doneMs: this.clock() } };
  }

  private async onDetectorEvent(event: DetectorEvent, signal?: AbortSignal): Promise<VoiceTurnResult | undefined> {
    this.emitSpeech(event);
    return event.type === 'end' ? this.answer(event.samples, signal) : undefined;
  }

  private async transcribe(samples: Int16Array, signal?: AbortSignal): Promise<Transcript> {
    let final: Transcript | undefined;
    try {
      for await (const result of this.options.stt.transcribe(samples, { signal })) {
        if (result.final) final = result;
        else this.options.bus.emit({ type: 'voice.transcript', stage: 'stt', text: clip(result.text), final: false, atMs: this.clock() });
      }
    } catch (error) {
      const code = isAppError(error) ? error.code : 'STT_FAILED';
      this.options.bus.emit({ type: 'error', stage: 'stt', code, message: messageOf(error), recoverable: true, atMs: this.clock() });
      return { text: '', final: true };
    }
    if (!final) throw new AppError('STT_NO_RESULT', `${this.options.stt.name} ended without a final transcript`);
    return final;
  }

  private languageOf(transcript: Transcript): string {
    const detected = transcript.language;
    return detected && this.options.languages.includes(detected) ? detected : this.options.defaultLanguage;
  }

  private emitListening(trigger: VoiceTrigger): void {
    this.options.bus.emit({ type: 'voice.listening', stage: 'voice', trigger, atMs: this.clock() });
  }

  private emitSpeech(event: DetectorEvent): void {
    const durationMs = event.type === 'end' ? Math.round((event.samples.length / SAMPLE_RATE) * 1000) : undefined;
    this.options.bus.emit({ type: 'voice.speech', stage: 'vad', phase: event.type, frame: event.frame, ...(durationMs === undefined ? {} : { durationMs }), atMs: this.clock() });
  }
}
