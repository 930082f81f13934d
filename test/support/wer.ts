/**
 * Word error rate: (substitutions + deletions + insertions) / reference
 * words, from a word-level Levenshtein alignment. Used to measure
 * recognizers against transcribed recordings.
 */

/**
 * Lower case, sentence markers (`<s>`, `</s>`) and punctuation dropped, so
 * "Mr. Dashwood," and "mr dashwood" compare equal. Apostrophes inside a word
 * stay ("don't" is not "dont"); hyphens split ("ill-disposed" is two words,
 * as dictionaries spell it).
 */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/<\/?s>/g, ' ')
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .split(' ')
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word !== '');
}

export interface WordErrors {
  /** Edits needed to turn the hypothesis into the reference. */
  errors: number;
  referenceWords: number;
  /** errors / referenceWords; against an empty reference, the count of inserted words (0 when both are empty). */
  rate: number;
}

export function wordErrors(reference: string, hypothesis: string): WordErrors {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  // One row of the edit-distance table at a time: previous[j] is the distance
  // between the first i-1 reference words and the first j hypothesis words.
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1));
    }
    previous = current;
  }
  const errors = previous[hyp.length]!;
  const rate = ref.length === 0 ? errors : errors / ref.length;
  return { errors, referenceWords: ref.length, rate };
}

export function wordErrorRate(reference: string, hypothesis: string): number {
  return wordErrors(reference, hypothesis).rate;
}
