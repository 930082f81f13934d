/**
 * Backchannels: "mm-hm", "yeah", "okay" said over a reply to show the
 * listener follows, not to take the floor. Words are compared folded
 * (case, accents, punctuation and hyphens dropped, a letter said twice
 * counted once), and a phrase of several words matches its words run
 * together, so recognizers' spellings agree: "Mm-hm.", "mmhm", "mm hm" and
 * "Mm-hmm" are one phrase; "sì" is "si".
 */

/** Backchannel phrases per language (ISO 639-1), as the config gives them. */
export type BackchannelLists = Readonly<Record<string, readonly string[]>>;

/** At most this many phrases make one backchannel ("yeah okay"): more is talk. */
const MOST_PHRASES = 2;
/** Words beyond this are never a backchannel, whatever they are. */
const MOST_WORDS = 6;

interface Phrases {
  /** Each phrase folded and run together. */
  whole: ReadonlySet<string>;
  /** Every beginning of those (a partial transcript may stop inside a phrase: "go" of "go on"). */
  starts: ReadonlySet<string>;
}

const compiled = new WeakMap<BackchannelLists, Map<string, Phrases>>();

/** The text's words, folded. */
function foldedWords(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[-\u2010\u2011\u2012\u2013\u2014'\u2019]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '')
    .map((word) => word.replace(/(\p{L})\1+/gu, '$1'));
}

function phrasesOf(lists: BackchannelLists, language: string | undefined): Phrases {
  let byLanguage = compiled.get(lists);
  if (!byLanguage) compiled.set(lists, (byLanguage = new Map()));
  const key = language !== undefined && lists[language] !== undefined ? language : '*';
  let phrases = byLanguage.get(key);
  if (phrases) return phrases;
  const source = key === '*' ? Object.values(lists).flat() : lists[key]!;
  const whole = new Set(source.map((phrase) => foldedWords(phrase).join('')).filter((phrase) => phrase !== ''));
  const starts = new Set<string>();
  for (const phrase of whole) for (let end = 1; end <= phrase.length; end++) starts.add(phrase.slice(0, end));
  phrases = { whole, starts };
  byLanguage.set(key, phrases);
  return phrases;
}

/**
 * The fewest phrases the words split into, in order and whole (the last one
 * may be only begun when `open`); Infinity when they do not.
 */
function fewestPhrases(words: string[], phrases: Phrases, open: boolean): number {
  const fewest: number[] = new Array<number>(words.length + 1).fill(Infinity);
  fewest[words.length] = 0;
  for (let from = words.length - 1; from >= 0; from--) {
    let joined = '';
    for (let to = from + 1; to <= words.length; to++) {
      joined += words[to - 1];
      const fits = phrases.whole.has(joined) || (open && to === words.length && phrases.starts.has(joined));
      if (fits) fewest[from] = Math.min(fewest[from]!, fewest[to]! + 1);
    }
  }
  return fewest[0]!;
}

/**
 * The whole text is one or two backchannel phrases ("mm-hm", "yeah okay").
 * `language`: the transcript's, when the recognizer says; a language with no
 * list, or none given, is matched against every list.
 */
export function isBackchannel(text: string, lists: BackchannelLists, language?: string): boolean {
  const words = foldedWords(text);
  if (words.length === 0 || words.length > MOST_WORDS) return false;
  return fewestPhrases(words, phrasesOf(lists, language), false) <= MOST_PHRASES;
}

/** The words so far (a partial transcript) may still end as a backchannel: "go" may become "go on"; "stop" may not. */
export function mayBeBackchannel(text: string, lists: BackchannelLists, language?: string): boolean {
  const words = foldedWords(text);
  if (words.length === 0) return true;
  if (words.length > MOST_WORDS) return false;
  return fewestPhrases(words, phrasesOf(lists, language), true) <= MOST_PHRASES;
}
