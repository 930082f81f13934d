import type { RecognitionSession } from '../types.js';
import type { WordsVerdict } from '../vad/index.js';

/**
 * Words a finished question does not end on: a sentence whose last word is
 * one of these ("what's the weather in", "and the") is still going, whatever
 * the recognizer's language model says of it. Only the languages the voice
 * speaks; an unknown language has no list (the model alone decides).
 */
const OPEN_ENDINGS: Record<string, ReadonlySet<string>> = {
  // Not the words a question may end on: "how are you", "where is it from", "what is it about", "I think so".
  en: new Set('a an the and or but nor because if than of in to with my your his her their our its whats um uh er erm very'.split(' ')),
  // Not "come", "dove", "perché", "quando": a question may be that one word.
  it: new Set(
    ('e o ma che se il lo la i gli le un uno una di a da in con su per tra fra del dello della dei degli delle ' +
      'al allo alla ai agli alle nel nello nella nei negli nelle mio mia tuo tua suo sua').split(' '),
  ),
};

/** The last word of `text`, folded (lower case, no punctuation but the apostrophe dropped too: "what's" -> "whats"). */
function lastWord(text: string): string {
  const words = text.trim().split(/\s+/);
  return (words.at(-1) ?? '').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * True when the words stop where no sentence ends (a trailing "and", "the", "in"). Without a
 * language (a recognizer that does not say), any of the lists.
 */
export function endsOpen(text: string, language?: string): boolean {
  const word = lastWord(text);
  if (word === '') return true;
  if (language === undefined) return Object.values(OPEN_ENDINGS).some((words) => words.has(word));
  return OPEN_ENDINGS[language.split('-')[0]!.toLowerCase()]?.has(word) ?? false;
}

/** When the endpointer asks: the silence it wants a finished sentence to hold for, and the silence so far. */
export interface EndCheckTimes {
  holdMs: number;
  silenceMs: number;
}

/**
 * What the words recognized so far say of the turn's end (the endpointer's check):
 * `finished` when the recognizer calls them a finished sentence that stood unchanged `holdMs`
 * of audio and they do not stop on a word no sentence ends with; `open` for any other words
 * (a pause inside a question must not end it), and for words the recognizer has not caught
 * up with: while its backlog is longer than the silence so far, some of the speech before the
 * pause is not in them yet (measured in real time: 100-560 ms behind at a 160 ms pause, and
 * then a stale "eight of spades" looks finished in the middle of a list); `unknown` when the
 * recognizer tells neither (an engine without a live hypothesis: the usual silence) or has no
 * words yet.
 */
export function wordsVerdict(recognition: RecognitionSession, times: EndCheckTimes, language?: string): WordsVerdict {
  const words = recognition.hypothesis?.();
  if (words === undefined || recognition.sentenceComplete === undefined || words.trim() === '') return 'unknown';
  if ((recognition.backlogMs?.() ?? 0) > times.silenceMs) return 'open';
  return !endsOpen(words, language) && recognition.sentenceComplete(times.holdMs) ? 'finished' : 'open';
}
