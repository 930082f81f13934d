/**
 * The words two successive partial transcripts agree on, from the start:
 * what a re-decoding recognizer is unlikely to change any more. Compared
 * case-insensitively, without punctuation; returned as the newer partial
 * spelled them.
 */
export function stablePrefix(previous: string, current: string): string {
  const before = previous.split(/\s+/).filter(Boolean);
  const now = current.split(/\s+/).filter(Boolean);
  return now.slice(0, agreedWords(before, now)).join(' ');
}

/** How many leading words two word lists share (case and punctuation aside). */
export function agreedWords(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && fold(a[n]!) === fold(b[n]!)) n++;
  return n;
}

function fold(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');
}
