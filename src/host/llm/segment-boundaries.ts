/**
 * What the sentence splitter knows about the text around a possible boundary:
 * sentence marks, abbreviations, and the kind of pause a space follows. Pure
 * functions of the text, so every decision depends on the text alone.
 */

export const TERMINATORS = new Set(['.', '!', '?', '…']);
/** Closing quotes, brackets and markdown emphasis that belong to the sentence they follow. */
export const CLOSERS = new Set(['"', "'", '”', '’', '»', ')', ']', '}', '*', '_', '`']);
/** Stripped from the front of the word before a dot when looking it up. */
const OPENERS = /^["'“‘«([{*_`]+/;
/** Marks that end a clause when a space follows ("1,000" and "21,5" have none). */
const CLAUSE_MARKS = new Set([',', ';', ':', '—', '–']);

/** Titles and Latin-style abbreviations, English and Italian: a dot after them never ends a sentence. */
export const TITLES = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'vs', 'e.g', 'i.e', 'cf', 'approx', 'viz',
  'sig', 'sigg', 'sig.ra', 'sig.na', 'dott', 'dott.ssa', 'prof.ssa', 'ing', 'avv', 'arch', 'geom', 'rag', 'mons', 'cfr', 'es',
]);
/** Abbreviations that stand before a number ("No. 5", "pag. 12"); as words ("I said no.") they may end one. */
export const BEFORE_NUMBER = new Set(['no', 'nos', 'n', 'nr', 'vol', 'fig', 'p', 'pp', 'pag', 'art', 'tel', 'cap', 'ch', 'ca', 'par', 'sec']);

/** "J." in "J. R. R. Tolkien"; "I" is the English pronoun ("So do I."). */
export function isInitial(word: string): boolean {
  return word !== 'I' && /^\p{Lu}$/u.test(word);
}

/** The word that ends at `dot`, without opening quotes or brackets. */
export function wordBefore(s: string, dot: number): string {
  const raw = /\S*$/.exec(s.slice(0, dot))?.[0] ?? '';
  return raw.replace(OPENERS, '');
}

/** "1." opening a line numbers a list item; "it costs 5." ends a sentence. */
export function isListNumber(s: string, word: string, dot: number): boolean {
  return /^\d+$/.test(word) && /(^|\n)[ \t]*$/.test(s.slice(0, dot - word.length));
}

/**
 * The first character of the next word after the whitespace at `from`,
 * 'line' when a line break comes first, or 'wait' when the text so far ends
 * inside the whitespace.
 */
export function nextWordStart(s: string, from: number): string {
  for (let k = from; k < s.length; k += 1) {
    const c = s[k] as string;
    if (c === '\n') return 'line';
    if (!/\s/.test(c)) return c;
  }
  return 'wait';
}

/**
 * What a cut of `s` at `end` (a space that follows a non-space) would follow:
 * the end of a clause (a comma, semicolon, colon or dash, or a dot or an
 * ellipsis that did not end the sentence: "etc. and", "Well... maybe"), an
 * abbreviation ("Dr.", "e.g.", "J.", "No.", a list's "1."), where a cut would
 * part words that belong together, or a plain word.
 */
export function pauseBefore(s: string, end: number): 'clause' | 'abbreviation' | 'word' {
  let j = end - 1;
  while (j > 0 && CLOSERS.has(s[j] as string) && !/\s/.test(s[j - 1] as string)) j -= 1;
  const mark = s[j] as string;
  if (CLAUSE_MARKS.has(mark)) return 'clause';
  // A hyphen alone between spaces is a dash; at a word's end ("pre- and post-") it is not.
  if (mark === '-') return j === 0 || /\s/.test(s[j - 1] as string) ? 'clause' : 'word';
  if (!TERMINATORS.has(mark)) return 'word';
  if (mark !== '.' || TERMINATORS.has(s[j - 1] as string)) return 'clause';
  const word = wordBefore(s, j);
  const lower = word.toLowerCase();
  const abbreviation = TITLES.has(lower) || BEFORE_NUMBER.has(lower) || isInitial(word) || isListNumber(s, word, j);
  return abbreviation ? 'abbreviation' : 'clause';
}

/** Words that carry a letter or a digit: a dash or an emoji alone is no word. */
export function countWords(text: string): number {
  let n = 0;
  for (const word of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(word)) n += 1;
  return n;
}
