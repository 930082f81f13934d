import type { Vad } from '../types.js';

/**
 * The endpointer's VAD in full duplex: the probabilities the barge-in
 * detector already computed for the same windows of the same cleaned audio,
 * handed out in order. One model run per window, and one model state.
 */
export class ScoreReplayVad implements Vad {
  private readonly scores: number[] = [];

  constructor(readonly frameSamples: number) {}

  /** The detector's scores for the windows the next push completes. */
  feed(probabilities: readonly number[]): void {
    this.scores.push(...probabilities);
  }

  /** The next window's score; a window the detector never scored (the padded end of a stream) is silence. */
  async probability(): Promise<number> {
    return this.scores.shift() ?? 0;
  }

  /** The scores' owner keeps the model state; a reset here only drops scores not yet taken. */
  reset(): void {
    this.scores.length = 0;
  }

  async close(): Promise<void> {}
}
