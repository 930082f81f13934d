import type { RecognitionSession } from '../types.js';

/**
 * Words a finished question does not end on: a sentence whose last word is
 * one of these ("what's the weather in", "and the") is still going, whatever
 * the recognizer's language model says of it. Only the languages the voice
 * speaks; an unknown language has no list (the model alone decides).
 */
const OPEN_ENDINGS: Record<string, ReadonlySet<string>> = {
  en: new Set(
    ('a an the and or but so because if than that this these those of to in on at for with from by about into over under ' +
      'my your his her their our its what whats which who whose where when how is are was were am be i we you he she they ' +
      'um uh er erm some any very more most less much many')
      .split(' '),
  ),
  it: new Set(
    ('e o ma che se il lo la i gli le un uno una di a da in con su per tra fra del dello della dei degli delle ' +
      'al allo alla ai agli alle nel nello nella nei negli nelle mio mia tuo tua suo sua quale qual come dove quando perché è sono molto più')
      .split(' '),
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

/**
 * The early end of turn's check: the recognizer says the words make a finished sentence that
 * stood unchanged `holdMs` of audio, and they do not stop on a word no sentence ends with.
 */
export function finishedSentence(recognition: RecognitionSession, holdMs: number, language?: string): boolean {
  if (!(recognition.sentenceComplete?.(holdMs) ?? false)) return false;
  const words = recognition.hypothesis?.();
  return words === undefined || !endsOpen(words, language);
}
