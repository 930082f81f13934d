import type { Tts } from '../types.js';

/**
 * One sentence synthesized ahead of being said: the first segment of a
 * speculative reply, made while the user's turn is not yet certain. Its
 * chunks are kept, not played; `chunks()` gives those made so far and then
 * the rest as they come. `cancel` stops the synthesis; a prepared sentence
 * nobody takes is just dropped.
 */
export class PreparedSpeech {
  private readonly made: Int16Array[] = [];
  private done = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  private readonly controller = new AbortController();

  constructor(
    readonly text: string,
    readonly language: string,
    tts: Tts,
  ) {
    // run() keeps its failure in `failure`, and chunks() throws it to whoever takes the sentence.
    void this.run(tts);
  }

  /** The same sentence in the same language. */
  matches(text: string, language: string): boolean {
    return text === this.text && language === this.language;
  }

  cancel(): void {
    this.controller.abort();
    this.notify();
  }

  /** The synthesized chunks, those made already first; throws what the synthesis threw. */
  async *chunks(signal?: AbortSignal): AsyncIterable<Int16Array> {
    let next = 0;
    for (;;) {
      while (next < this.made.length) yield this.made[next++]!;
      if (this.failure !== undefined) throw this.failure;
      if (this.done || signal?.aborted || this.controller.signal.aborted) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private async run(tts: Tts): Promise<void> {
    try {
      for await (const chunk of tts.synthesize(this.text, { language: this.language, signal: this.controller.signal })) {
        this.made.push(chunk);
        this.notify();
      }
    } catch (error) {
      if (!this.controller.signal.aborted) this.failure = error;
    } finally {
      this.done = true;
      this.notify();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
