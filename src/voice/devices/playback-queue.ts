/**
 * Audio waiting to be handed to the device, at the device's rate, mono. The
 * device takes it a chunk at a time; a write's promise settles when its last
 * sample has been taken (or dropped by clear), which is what "handed to the
 * device" means for AudioOutput.write.
 */
interface Piece {
  samples: Int16Array;
  offset: number;
  /** Settles the write this piece ends. */
  settle?: () => void;
}

export interface TakenChunk {
  samples: Int16Array;
  /** Writes whose last sample is in this chunk. */
  settled: (() => void)[];
}

export class PlaybackQueue {
  private pieces: Piece[] = [];
  private length = 0;

  /** Samples queued and not yet taken. */
  get queuedSamples(): number {
    return this.length;
  }

  push(samples: Int16Array, settle?: () => void): void {
    if (samples.length === 0) {
      settle?.();
      return;
    }
    this.pieces.push(settle ? { samples, offset: 0, settle } : { samples, offset: 0 });
    this.length += samples.length;
  }

  /** Up to `maxSamples` from the front, across pieces; undefined when empty. */
  take(maxSamples: number): TakenChunk | undefined {
    if (this.length === 0) return undefined;
    const samples = new Int16Array(Math.min(maxSamples, this.length));
    const settled: (() => void)[] = [];
    let filled = 0;
    while (filled < samples.length) {
      const piece = this.pieces[0]!;
      const count = Math.min(samples.length - filled, piece.samples.length - piece.offset);
      samples.set(piece.samples.subarray(piece.offset, piece.offset + count), filled);
      filled += count;
      piece.offset += count;
      if (piece.offset === piece.samples.length) {
        this.pieces.shift();
        if (piece.settle) settled.push(piece.settle);
      }
    }
    this.length -= filled;
    return { samples, settled };
  }

  /** Drops everything; returns the settlers of the dropped writes. */
  clear(): (() => void)[] {
    const settled = this.pieces.flatMap((piece) => (piece.settle ? [piece.settle] : []));
    this.pieces = [];
    this.length = 0;
    return settled;
  }
}
