/**
 * Work run one piece at a time, in the order it was queued: each piece
 * starts once the one before it has settled, whether it succeeded or not.
 * What a piece returns or throws goes to whoever queued it; a failure never
 * stops the pieces after it. The voice's engines use it where each call needs
 * the state the previous one left (Silero's, the decoder's) or where the
 * order is what is heard (the speaker's sentences).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after everything queued before it; settles as it does. */
  run<T>(work: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    // The caller gets the failure through `result`; the tail only orders the next work after it.
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once everything queued so far has settled (never rejects). */
  async idle(): Promise<void> {
    await this.tail;
  }
}
