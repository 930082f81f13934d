import type { SpeculativeReply, VoiceConversation } from '../host-ports.js';
import type { RecognitionSession } from '../types.js';
import { endsOpen } from './end-of-turn.js';
import type { Speaker } from './speaker.js';

export interface PreemptionOptions {
  conversation: VoiceConversation;
  speaker: Speaker;
  /** Silence after the last voiced window before the words so far are asked about, ms. */
  pauseMs: number;
  /** The question's language (the turn's). */
  language: string;
  /** A sentence's language for the voice. */
  sentenceLanguage: (sentence: string, fallback: string) => string;
}

/** Words that have stood unchanged this long into the pause (ms of silence) are asked about, finished-sounding or not. */
const STEADY_MS = 32;

/** Transcripts compared as one question: lower case, one space, no punctuation at either end. */
function sameQuestion(a: string, b: string): boolean {
  const fold = (text: string): string => text.normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '');
  return fold(a) === fold(b);
}

/**
 * Preemptive generation for one utterance, on the voice's side: when the
 * user pauses, the decoder has caught up with the speech before the pause,
 * and its words hold still and do not stop open, the
 * conversation is asked for a reply at once (`speculate`) and its first
 * segment is synthesized, unheard. Speech that goes on, or words that
 * change, discard it. At the end `take` hands it to the turn when the final
 * transcript is the same question; else it is discarded here. Nothing of a
 * speculation is played unless its turn takes it.
 */
export class Preemption {
  private current: SpeculativeReply | undefined;
  /** The words heard in this pause, and how far into it they last changed. */
  private heard: { words: string; atSilenceMs: number } | undefined;

  constructor(private readonly options: PreemptionOptions) {}

  /** After each VAD window of the utterance: the silence so far (0: voiced). */
  pause(silenceMs: number, recognition: RecognitionSession): void {
    if (silenceMs === 0) {
      this.heard = undefined;
      this.discard('the user went on');
      return;
    }
    const words = recognition.hypothesis?.() ?? '';
    if (this.heard?.words !== words) this.heard = { words, atSilenceMs: silenceMs };
    if (silenceMs < this.options.pauseMs || !this.options.conversation.speculate) return;
    if (this.current && sameQuestion(this.current.text, words)) return;
    // Words that stop on "and", "the" are not a question yet; others are asked about once they hold still
    // (at once when the recognizer calls them a finished sentence): the end of turn comes 160-500 ms later.
    const steady = silenceMs - this.heard.atSilenceMs >= STEADY_MS || (recognition.sentenceComplete?.(Math.min(silenceMs, STEADY_MS)) ?? false);
    // A decoder further behind than the pause has not heard all of the speech before it: its words are not the question yet.
    const caughtUp = (recognition.backlogMs?.() ?? 0) <= silenceMs;
    const worthAsking = words.trim() !== '' && !endsOpen(words, this.options.language) && steady && caughtUp;
    this.discard('the words changed');
    if (worthAsking) this.start(words);
  }

  /** The speculation for the turn of this final transcript, or undefined (discarded when it was for other words). */
  take(final: string): SpeculativeReply | undefined {
    const current = this.current;
    if (current && !sameQuestion(current.text, final)) {
      this.discard('the final transcript is another question');
      return undefined;
    }
    this.current = undefined;
    return current;
  }

  /** Cancels the speculation under way, if any (again: nothing happens). */
  discard(reason: string): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    this.options.speaker.dropPrepared();
    this.options.conversation.discardSpeculation?.(current, reason);
  }

  private start(words: string): void {
    const { conversation, speaker, language, sentenceLanguage } = this.options;
    const speculation = conversation.speculate!(words);
    this.current = speculation;
    // firstSentence never rejects: a failed speculation resolves it with undefined.
    void speculation.firstSentence.then((sentence) => {
      if (sentence && this.current === speculation) speaker.prepare(sentence, sentenceLanguage(sentence, language));
    });
  }
}
