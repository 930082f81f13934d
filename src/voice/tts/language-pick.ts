/**
 * The language of each sentence of a reply, as the predecessor chose it: a
 * reply in Italian that quotes an English sentence switches voice for that
 * sentence and back. The guess is the host's (common short words decide);
 * the fallback, the turn's language, wins ties and sentences with no telling
 * word ("OK.", a name), so the voice only switches on evidence.
 */
import { guessLanguage } from '../../language/index.js';

/** `languages`: the `[voice.<lang>]` keys; the result is always one of them, or `fallback`. */
export function pickSentenceLanguage(sentence: string, languages: readonly string[], fallback: string): string {
  const candidates = languages.includes(fallback) ? [fallback, ...languages.filter((l) => l !== fallback)] : [...languages];
  return guessLanguage(sentence, candidates, fallback);
}

/** The `(sentence, fallback) => language` a voice session takes, for a fixed set of languages. */
export function sentenceLanguagePicker(languages: readonly string[]): (sentence: string, fallback: string) => string {
  const known = [...languages];
  return (sentence, fallback) => pickSentenceLanguage(sentence, known, fallback);
}
