/**
 * Splits streamed text into sentences as it arrives, so speech can start on
 * the first one while the model writes the rest. A boundary is decided only
 * once enough text after it has arrived, so the result never depends on how
 * the text was chunked.
 */

const TERMINATORS = new Set(['.', '!', '?', '…']);
/** Closing quotes, brackets and markdown emphasis that belong to the sentence they follow. */
const CLOSERS = new Set(['"', "'", '”', '’', '»', ')', ']', '}', '*', '_', '`']);
/** Stripped from the front of the word before a dot when looking it up. */
const OPENERS = /^["'“‘«([{*_`]+/;

/** Titles and Latin-style abbreviations, English and Italian: a dot after them never ends a sentence. */
const TITLES = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'vs', 'e.g', 'i.e', 'cf', 'approx', 'viz',
  'sig', 'sigg', 'sig.ra', 'sig.na', 'dott', 'dott.ssa', 'prof.ssa', 'ing', 'avv', 'arch', 'geom', 'rag', 'mons', 'cfr', 'es',
]);
/** Abbreviations that stand before a number ("No. 5", "pag. 12"); as words ("I said no.") they may end one. */
const BEFORE_NUMBER = new Set(['no', 'nos', 'n', 'nr', 'vol', 'fig', 'p', 'pp', 'pag', 'art', 'tel', 'cap', 'ch', 'ca', 'par', 'sec']);

export interface SentenceSplitterOptions {
  /**
   * Which line breaks end a sentence: only a blank line (the default), or
   * every line break (markdown lists, one item a line).
   */
  lineBreaks?: 'blank-line' | 'every-line';
}

type Decision = { kind: 'split'; end: number } | { kind: 'no'; skipTo: number } | { kind: 'wait' };

export class SentenceSplitter {
  private buffer = '';
  /** Positions before this one in `buffer` are known not to be boundaries. */
  private scanFrom = 0;
  private readonly everyLine: boolean;

  constructor(options: SentenceSplitterOptions = {}) {
    this.everyLine = options.lineBreaks === 'every-line';
  }

  /** Adds a piece of the text; returns the sentences it completed, trimmed. */
  push(delta: string): string[] {
    this.buffer += delta;
    return this.drain();
  }

  /** Ends the text: returns what is left as a last sentence (none when it is blank). */
  flush(): string[] {
    const sentences = this.drain();
    const rest = this.buffer.trim();
    this.buffer = '';
    this.scanFrom = 0;
    if (rest !== '') sentences.push(rest);
    return sentences;
  }

  private drain(): string[] {
    const sentences: string[] = [];
    let i = this.scanFrom;
    while (i < this.buffer.length) {
      const decision = this.decideAt(i);
      if (decision.kind === 'wait') break;
      if (decision.kind === 'no') {
        i = decision.skipTo;
        continue;
      }
      const sentence = this.buffer.slice(0, decision.end).trim();
      if (sentence !== '') sentences.push(sentence);
      this.buffer = this.buffer.slice(decision.end).replace(/^\s+/, '');
      i = 0;
    }
    this.scanFrom = i;
    return sentences;
  }

  private decideAt(i: number): Decision {
    const s = this.buffer;
    const ch = s[i] as string;
    if (ch === '\n') return this.decideLineBreak(i);
    if (!TERMINATORS.has(ch)) return { kind: 'no', skipTo: i + 1 };

    let k = i;
    while (k < s.length && TERMINATORS.has(s[k] as string)) k += 1;
    const run = s.slice(i, k);
    while (k < s.length && CLOSERS.has(s[k] as string)) k += 1;
    if (k === s.length) return { kind: 'wait' };
    if (!/\s/.test(s[k] as string)) return { kind: 'no', skipTo: k };
    if (run.includes('!') || run.includes('?')) return { kind: 'split', end: k };

    // A dot or an ellipsis: a title, an initial or a list number before it,
    // or a lower-case word after it ("etc. and", "wait... maybe"), means no end.
    const word = run === '.' ? this.wordBefore(i) : '';
    if (TITLES.has(word.toLowerCase()) || isInitial(word) || this.isListNumber(word, i)) return { kind: 'no', skipTo: k };
    const next = nextWordStart(s, k);
    if (next === 'wait') return { kind: 'wait' };
    if (next === 'line') return { kind: 'split', end: k };
    if (/\p{Ll}/u.test(next) || (/\d/.test(next) && BEFORE_NUMBER.has(word.toLowerCase()))) return { kind: 'no', skipTo: k };
    return { kind: 'split', end: k };
  }

  private decideLineBreak(i: number): Decision {
    if (this.everyLine) return { kind: 'split', end: i };
    const s = this.buffer;
    let k = i + 1;
    while (k < s.length && (s[k] === ' ' || s[k] === '\t' || s[k] === '\r')) k += 1;
    if (k === s.length) return { kind: 'wait' };
    return s[k] === '\n' ? { kind: 'split', end: i } : { kind: 'no', skipTo: k };
  }

  /** The word that ends at `dot`, without opening quotes or brackets. */
  private wordBefore(dot: number): string {
    const raw = /\S*$/.exec(this.buffer.slice(0, dot))?.[0] ?? '';
    return raw.replace(OPENERS, '');
  }

  /** "1." opening a line numbers a list item; "it costs 5." ends a sentence. */
  private isListNumber(word: string, dot: number): boolean {
    return /^\d+$/.test(word) && /(^|\n)[ \t]*$/.test(this.buffer.slice(0, dot - word.length));
  }
}

/** "J." in "J. R. R. Tolkien"; "I" is the English pronoun ("So do I."). */
function isInitial(word: string): boolean {
  return word !== 'I' && /^\p{Lu}$/u.test(word);
}

/**
 * The first character of the next word after the whitespace at `from`,
 * 'line' when a line break comes first, or 'wait' when the text so far ends
 * inside the whitespace.
 */
function nextWordStart(s: string, from: number): string {
  for (let k = from; k < s.length; k += 1) {
    const c = s[k] as string;
    if (c === '\n') return 'line';
    if (!/\s/.test(c)) return c;
  }
  return 'wait';
}

/** Splits a whole text at once: the same answer as pushing it in any chunks and flushing. */
export function splitSentences(text: string, options?: SentenceSplitterOptions): string[] {
  const splitter = new SentenceSplitter(options);
  return [...splitter.push(text), ...splitter.flush()];
}
