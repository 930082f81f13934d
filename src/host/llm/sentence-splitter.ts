/**
 * Splits streamed text into segments for speech as it arrives, so speech can
 * start on the first one while the model writes the rest. A segment is a
 * sentence; the first may be a clause (`firstSegment: 'clause'`), and one
 * with no sentence end is cut at `maxSegmentChars`, so no text waits for an
 * end that does not come. A boundary is decided only once enough text after
 * it has arrived, from the text alone, so the result never depends on how the
 * text was chunked.
 */

import { BEFORE_NUMBER, CLOSERS, TERMINATORS, TITLES, countWords, isInitial, isListNumber, nextWordStart, pauseBefore, wordBefore } from './segment-boundaries.js';

/**
 * 250 characters is 40-odd words, some 15 s of speech: a spoken sentence is
 * rarely longer, so real sentences are almost never cut, while a run-on reply
 * is heard after about 60 tokens (1.5 s at 25 ms a token). Kokoro takes 510
 * phonemes at once, and 250 characters of English or Italian is about half that.
 */
export const DEFAULT_MAX_SEGMENT_CHARS = 250;
/** A clause ends the first segment only from this many words: "Well," or "Yes, sure," alone sounds clipped. */
export const FIRST_CLAUSE_MIN_WORDS = 3;
/**
 * With no sentence or clause end, the first segment ends after this many
 * words: about 2 s of speech, in which the model (25 ms a token) writes some
 * 60 words more, so the next segment is ready before the first is heard out.
 */
export const FIRST_SEGMENT_MAX_WORDS = 7;

export interface SentenceSplitterOptions {
  /**
   * Which line breaks end a sentence: only a blank line (the default), or
   * every line break (markdown lists, one item a line).
   */
  lineBreaks?: 'blank-line' | 'every-line';
  /**
   * The first segment of each reply (up to a flush): a sentence (the
   * default), or 'clause' for the first sound sooner: it also ends at a
   * clause end (a comma, semicolon, colon, dash, or a dot that is no sentence
   * end, with a space after it) once it holds FIRST_CLAUSE_MIN_WORDS words,
   * and otherwise after FIRST_SEGMENT_MAX_WORDS words. Never after an
   * abbreviation ("Dr.", "e.g.") nor inside a word or a number ("1,000").
   */
  firstSegment?: 'sentence' | 'clause';
  /**
   * A segment with no sentence end within this many characters (UTF-16 code
   * units) is cut at its last clause end within them, else at its last space
   * that does not follow an abbreviation, else at the first word end past
   * them (never inside a word). Default DEFAULT_MAX_SEGMENT_CHARS.
   */
  maxSegmentChars?: number;
}

type Decision = { kind: 'split'; end: number } | { kind: 'no'; skipTo: number } | { kind: 'wait' };

export class SentenceSplitter {
  /** The text not yet emitted; it never starts with whitespace. */
  private buffer = '';
  /** Positions before this one in `buffer` are known not to be boundaries. */
  private scanFrom = 0;
  private readonly everyLine: boolean;
  private readonly clauseFirst: boolean;
  private readonly maxChars: number;
  /** Whether the next segment is the first of the reply. */
  private first = true;

  constructor(options: SentenceSplitterOptions = {}) {
    this.everyLine = options.lineBreaks === 'every-line';
    this.clauseFirst = options.firstSegment === 'clause';
    this.maxChars = options.maxSegmentChars ?? DEFAULT_MAX_SEGMENT_CHARS;
    if (!Number.isInteger(this.maxChars) || this.maxChars < 1) throw new RangeError(`maxSegmentChars must be a positive integer, not ${this.maxChars}`);
  }

  /** Adds a piece of the text; returns the segments it completed, trimmed. */
  push(delta: string): string[] {
    this.buffer += delta;
    return this.drain();
  }

  /** Ends the text: returns what is left as a last segment (none when it is blank); the next push starts a new reply. */
  flush(): string[] {
    const segments = this.drain();
    const rest = this.buffer.trim();
    this.buffer = '';
    this.scanFrom = 0;
    this.first = true;
    if (rest !== '') segments.push(rest);
    return segments;
  }

  private drain(): string[] {
    const segments: string[] = [];
    let i = this.scanFrom;
    for (;;) {
      const lead = /^\s+/.exec(this.buffer)?.[0].length ?? 0;
      if (lead > 0) {
        this.buffer = this.buffer.slice(lead);
        i = Math.max(0, i - lead);
      }
      if (i >= this.buffer.length) break;
      // Every position before the limit is known to be no sentence end.
      const decision = i >= this.maxChars ? this.cutLong() : this.decideAt(i);
      if (decision.kind === 'wait') break;
      if (decision.kind === 'no') {
        i = decision.skipTo;
        continue;
      }
      const segment = this.buffer.slice(0, decision.end).trim();
      this.buffer = this.buffer.slice(decision.end);
      if (segment !== '') {
        segments.push(segment);
        this.first = false;
      }
      i = 0;
    }
    this.scanFrom = i;
    return segments;
  }

  private decideAt(i: number): Decision {
    const s = this.buffer;
    const ch = s[i] as string;
    if (this.clauseFirst && this.first && /\s/.test(ch) && this.endsFirstClause(i)) return { kind: 'split', end: i };
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
    const word = run === '.' ? wordBefore(s, i) : '';
    if (TITLES.has(word.toLowerCase()) || isInitial(word) || isListNumber(s, word, i)) return { kind: 'no', skipTo: k };
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

  /** Whether the space at `i` ends a first segment in 'clause' mode. */
  private endsFirstClause(i: number): boolean {
    const s = this.buffer;
    if (/\s/.test(s[i - 1] as string)) return false;
    const pause = pauseBefore(s, i);
    if (pause === 'abbreviation') return false;
    const words = countWords(s.slice(0, i));
    return words >= (pause === 'clause' ? FIRST_CLAUSE_MIN_WORDS : FIRST_SEGMENT_MAX_WORDS);
  }

  /**
   * The cut of a buffer that holds more than `maxChars` characters and no
   * sentence end within them: the last clause end, else the last plain word
   * end, within the limit; else the end of the first word past it.
   */
  private cutLong(): Decision {
    const s = this.buffer;
    let clause = 0;
    let word = 0;
    for (let end = 1; end <= this.maxChars; end += 1) {
      if (!/\s/.test(s[end] as string) || /\s/.test(s[end - 1] as string)) continue;
      const pause = pauseBefore(s, end);
      if (pause === 'clause') clause = end;
      else if (pause === 'word') word = end;
    }
    if (clause > 0 || word > 0) return { kind: 'split', end: clause || word };
    const past = /\S\s/.exec(s.slice(this.maxChars));
    return past ? { kind: 'split', end: this.maxChars + past.index + 1 } : { kind: 'wait' };
  }
}

/** Splits a whole text at once: the same answer as pushing it in any chunks and flushing. */
export function splitSentences(text: string, options?: SentenceSplitterOptions): string[] {
  const splitter = new SentenceSplitter(options);
  return [...splitter.push(text), ...splitter.flush()];
}
