import { agreedWords } from './stable-prefix.js';

/**
 * The stable prefix of an incremental decoder's hypotheses: the leading
 * words every hypothesis of the last `holdMs` of audio agreed on. The
 * decoder revises its last words as more audio comes, so a word counts as
 * stable once it has survived that much audio unchanged. Words compare
 * case-insensitively, without punctuation, and are returned as the newest
 * hypothesis spells them.
 */
export class StableWords {
  private history: Array<{ audioMs: number; words: string[] }> = [];

  constructor(private readonly holdMs: number) {}

  /** The hypothesis after `audioMs` of audio; returns its stable prefix. */
  update(text: string, audioMs: number): string {
    const words = text.split(/\s+/).filter(Boolean);
    this.history.push({ audioMs, words });
    // Keep the newest hypothesis at least holdMs old: the window it opens.
    while (this.history.length > 1 && audioMs - this.history[1]!.audioMs >= this.holdMs) this.history.shift();
    const oldest = this.history[0]!;
    if (audioMs - oldest.audioMs < this.holdMs) return '';
    let agreed = words.length;
    for (const earlier of this.history) agreed = Math.min(agreed, agreedWords(earlier.words, words));
    return words.slice(0, agreed).join(' ');
  }
}
