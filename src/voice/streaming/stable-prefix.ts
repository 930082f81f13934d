/**
 * The words two successive partial transcripts agree on, from the start:
 * what a re-decoding recognizer is unlikely to change any more. Compared
 * case-insensitively, without punctuation; returned as the newer partial
 * spelled them.
 */
export function stablePrefix(previous: string, current: string): string {
  const before = previous.split(/\s+/).filter(Boolean);
  const now = current.split(/\s+/).filter(Boolean);
  let agreed = 0;
  while (agreed < before.length && agreed < now.length && fold(before[agreed] ?? '') === fold(now[agreed] ?? '')) agreed++;
  return now.slice(0, agreed).join(' ');
}

function fold(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');
}
