import { agreedWords } from './stable-prefix.js';

/**
 * The stable prefix of an incremental decoder's hypotheses. The decoder
 * revises its words as more audio comes, the last one most: a word that
 * another word already follows is stable once every hypothesis of the last
 * `innerHoldMs` of audio agreed on it, the hypothesis' last word once they
 * agreed for `holdMs`. Words compare case-insensitively, without
 * punctuation, and are returned as the newest hypothesis spells them.
 */
export class StableWords {
  private history: Array<{ audioMs: number; words: string[] }> = [];

  constructor(
    private readonly holdMs: number,
    private readonly innerHoldMs: number = holdMs,
  ) {}

  /** The hypothesis after `audioMs` of audio; returns its stable prefix. */
  update(text: string, audioMs: number): string {
    const words = text.split(/\s+/).filter(Boolean);
    this.history.push({ audioMs, words });
    const longest = Math.max(this.holdMs, this.innerHoldMs);
    // Keep the newest hypothesis at least the longest hold old: the window it opens.
    while (this.history.length > 1 && audioMs - this.history[1]!.audioMs >= longest) this.history.shift();
    const inner = Math.min(this.agreedFor(this.innerHoldMs, words, audioMs), words.length - 1);
    return words.slice(0, Math.max(inner, this.agreedFor(this.holdMs, words, audioMs))).join(' ');
  }

  /** How many leading words every hypothesis since `holdMs` before `audioMs` shares with `words`; 0 when none is that old. */
  private agreedFor(holdMs: number, words: readonly string[], audioMs: number): number {
    let start = -1;
    for (let i = 0; i < this.history.length && audioMs - this.history[i]!.audioMs >= holdMs; i++) start = i;
    if (start < 0) return 0;
    let agreed = words.length;
    for (const earlier of this.history.slice(start)) agreed = Math.min(agreed, agreedWords(earlier.words, words));
    return agreed;
  }
}
