import type { ConfirmationChannel } from '../host-ports.js';
import type { Speaker } from './speaker.js';
import type { HeardUtterance } from './voice-session.js';
import { confirmationPrompt, spokenAnswer } from './spoken-answer.js';

export interface VoiceConfirmationOptions {
  speaker: Speaker;
  /** Records the answer: the utterance once the VAD hears it end, undefined when nobody spoke before `signal` aborted. */
  listen: (signal: AbortSignal) => Promise<HeardUtterance | undefined>;
  /** The language of the question being answered (the turn's). */
  language: () => string;
}

/**
 * The router's confirmation channel for voice turns: asks aloud (the tool,
 * and why when the content is sensitive), waits for the question to be
 * played (no echo cancellation in turn-based mode: the microphone must not
 * hear the question), then listens for a spoken yes or no in the question's
 * language. Silence until the router's timeout, or words that say neither,
 * are a no.
 */
export function voiceConfirmation(options: VoiceConfirmationOptions): ConfirmationChannel {
  return {
    async confirm(request, { signal }) {
      const language = options.language();
      await options.speaker.say(confirmationPrompt(request.tool, request.reason, language), language, request.turnId, signal);
      await options.speaker.drain();
      if (signal.aborted) return { answer: 'denied' };
      const heard = await options.listen(signal);
      if (!heard) return { answer: 'denied' };
      const stop = (): void => heard.recognition.cancel();
      signal.addEventListener('abort', stop, { once: true });
      try {
        const { text } = await heard.recognition.finish();
        return spokenAnswer(text) === 'yes' ? { answer: 'approved' } : { answer: 'denied' };
      } catch {
        // Not heard (a recognizer failure, a cancelled question): not a yes.
        return { answer: 'denied' };
      } finally {
        signal.removeEventListener('abort', stop);
      }
    },
  };
}
