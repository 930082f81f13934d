import { AppError } from '../errors/index.js';
import { MEMORY_EMBEDDER_BAD_OPTIONS, embedCancelled, normalizeInPlace, type Embedder } from './embedder.js';

export interface HashedEmbedderOptions {
  /** Length of the vectors; 256 by default. More dimensions, fewer hash collisions, bigger index. */
  dim?: number;
  /** Count a feature seen n times as 1 + ln(n) rather than n, so one repeated word cannot swamp a text. */
  sublinearTf?: boolean;
}

export const HASHED_EMBEDDER_DEFAULT_DIM = 256;

/**
 * The offline embedder: no model, no download, deterministic, microseconds a text.
 *
 * Feature hashing ("the hashing trick") of three kinds of feature, after
 * lowercasing and NFKD folding with the combining marks dropped ("Caffè" and
 * "caffe" are one word):
 * - words (runs of Unicode letters and digits), weight 1, or 0.25 for a short
 *   list of English and Italian function words ("the", "is", "di", "che", ...);
 * - word bigrams, weight 0.6 (0.15 when both words are function words);
 * - character trigrams of each word padded with `<` and `>` ("<ca", "caf", ...,
 *   "fe>"), skipped for function words, together weighing 0.5 a word however
 *   long it is, so long words do not outweigh short ones.
 * Each feature is hashed with FNV-1a over its UTF-16 code units, tagged by kind
 * and mixed with murmur3's finalizer (FNV's low bits alone spread poorly): the
 * hash modulo `dim` picks the dimension, its top bit the sign, so collisions
 * cancel out on average instead of piling up.
 *
 * What it can find: memories that share words with the query, or pieces of
 * words ("meeting" finds "meetings", "birthday" finds "birthdays"), in any
 * language or script, and across languages only where the words are the same
 * ("pizza", names, numbers). What it cannot find: synonyms and paraphrases
 * ("car" does not find "automobile", "when was I born" does not find "my
 * birthday"), translations ("dog" does not find "cane"), or anything that
 * needs meaning rather than spelling. Configure a model (HttpEmbedder) for that.
 */
export class HashedEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  private readonly sublinearTf: boolean;
  /** The current word's code units; reused by every call, grown for a longer word. */
  private word = new Uint16Array(64);
  /** Per-text feature counts, only for sublinear tf; cleared, not reallocated. */
  private readonly counts = new Map<number, number>();

  constructor(options: HashedEmbedderOptions = {}) {
    const dim = options.dim ?? HASHED_EMBEDDER_DEFAULT_DIM;
    if (!Number.isInteger(dim) || dim < 1 || dim > 65_536) {
      throw new AppError(MEMORY_EMBEDDER_BAD_OPTIONS, `the hashed embedder's dimension must be an integer from 1 to 65536, not ${dim}`);
    }
    this.dim = dim;
    this.sublinearTf = options.sublinearTf ?? false;
    this.id = `hashed-ngrams-v1/${dim}${this.sublinearTf ? '/sublinear-tf' : ''}`;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    if (options.signal?.aborted) throw embedCancelled('embedding with the hashed embedder', options.signal.reason);
    return texts.map((text) => this.embedOne(text));
  }

  /** Synchronous: the shared buffers are never used by two texts at once. */
  embedOne(text: string): Float32Array {
    const out = new Float32Array(this.dim);
    this.counts.clear();
    // Lowercase first: some lowercase forms decompose further under NFKD ("İ" -> "i" + dot).
    const s = text.toLowerCase().normalize('NFKD');
    let length = 0;
    let previous = 0;
    let previousStop = false;
    let hasPrevious = false;
    for (let i = 0; i <= s.length; i += 1) {
      const c = i < s.length ? s.charCodeAt(i) : 32;
      const units = charUnits(s, i, c);
      if (units > 0) {
        if (length + units > this.word.length) this.growWord();
        this.word[length] = c;
        if (units === 2) this.word[length + 1] = s.charCodeAt(i + 1);
        length += units;
        i += units - 1;
        continue;
      }
      if (units === SKIP) continue;
      if (length > 0) {
        const hash = wordHash(this.word, length);
        const stop = STOPWORDS.has(hash);
        this.add(out, fmix(hash), stop ? STOPWORD_WEIGHT : WORD_WEIGHT);
        if (hasPrevious) {
          const bigram = fmix((Math.imul(previous, 0x9e3779b1) ^ hash ^ BIGRAM_TAG) >>> 0);
          this.add(out, bigram, stop && previousStop ? STOPWORD_WEIGHT * BIGRAM_WEIGHT : BIGRAM_WEIGHT);
        }
        if (!stop) this.addTrigrams(out, length);
        previous = hash;
        previousStop = stop;
        hasPrevious = true;
        length = 0;
      }
      // A sentence break ends the bigram chain: "tea. Coffee" is not the phrase "tea coffee".
      if (c === 46 || c === 33 || c === 63 || c === 59 || c === 10) hasPrevious = false;
    }
    return normalizeInPlace(out);
  }

  private addTrigrams(out: Float32Array, length: number): void {
    const weight = TRIGRAM_WEIGHT / Math.sqrt(length);
    const w = this.word;
    // Window t covers the padded word "<" + w + ">" at positions t, t+1, t+2.
    for (let t = 0; t < length; t += 1) {
      let h = TRIGRAM_SEED;
      h = Math.imul(h ^ (t === 0 ? 60 : (w[t - 1] as number)), FNV_PRIME);
      h = Math.imul(h ^ (w[t] as number), FNV_PRIME);
      h = Math.imul(h ^ (t === length - 1 ? 62 : (w[t + 1] as number)), FNV_PRIME);
      this.add(out, fmix(h >>> 0), weight);
    }
  }

  private add(out: Float32Array, hash: number, weight: number): void {
    let w = weight;
    if (this.sublinearTf) {
      const n = (this.counts.get(hash) ?? 0) + 1;
      this.counts.set(hash, n);
      // The n-th occurrence adds ln(n) - ln(n - 1): n occurrences sum to 1 + ln(n).
      if (n > 1) w *= Math.log(n / (n - 1));
    }
    const index = hash % this.dim;
    out[index] = (out[index] as number) + (hash & 0x80000000 ? -w : w);
  }

  private growWord(): void {
    const bigger = new Uint16Array(this.word.length * 2);
    bigger.set(this.word);
    this.word = bigger;
  }
}

const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.6;
const TRIGRAM_WEIGHT = 0.5;
const STOPWORD_WEIGHT = 0.25;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
// Kind tags are fed to the hash first, so the word "cat" and the trigram "cat" land apart.
const WORD_SEED = Math.imul(FNV_OFFSET ^ 1, FNV_PRIME);
const TRIGRAM_SEED = Math.imul(FNV_OFFSET ^ 2, FNV_PRIME);
const BIGRAM_TAG = 0x5bd1e995;

const SKIP = -1;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]/u;
const MARK = /^\p{M}/u;

/**
 * How many code units at `i` belong to a word: 1 or 2 (a surrogate pair), 0 for
 * a separator, SKIP for a combining mark, which NFKD split off a letter and must
 * not split the word ("caffè" -> "caffe" + U+0300).
 */
function charUnits(s: string, i: number, c: number): number {
  if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) return 1;
  if (c < 128) return 0;
  if (c >= 0x300 && c <= 0x36f) return SKIP;
  const rest = s.slice(i, i + 2);
  if (MARK.test(rest)) return SKIP;
  if (!LETTER_OR_DIGIT.test(rest)) return 0;
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}

function wordHash(word: Uint16Array, length: number): number {
  let h = WORD_SEED;
  for (let k = 0; k < length; k += 1) h = Math.imul(h ^ (word[k] as number), FNV_PRIME);
  return h >>> 0;
}

/** murmur3's 32-bit finalizer: every input bit flips about half the output bits. */
function fmix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashOfWord(word: string): number {
  const units = Uint16Array.from(word, (ch) => ch.charCodeAt(0));
  return wordHash(units, units.length);
}

/**
 * Function words, kept by hash so a lookup allocates nothing; weighed low
 * because they match everywhere. Also the pieces an apostrophe leaves ("sister's" -> "s").
 */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it its ' +
    'me my no not of on or our she so than that the their them then there they this to up was we were what when where which ' +
    'who why will with would you your s t d m ll re ve ' +
    'il lo la le gli l un una uno di da del della dei delle in con su per tra fra e ed o che non mi ti si ci vi è sono ho ha ' +
    'al alla ai alle nel nella sul sulla come dove quando cosa chi mio mia miei mie tuo tua suo sua'
  )
    .split(' ')
    .map((word) => hashOfWord(word.normalize('NFKD').replace(/\p{M}/gu, ''))),
);
