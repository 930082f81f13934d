import { SAMPLE_RATE } from '../types.js';

/** 100 ms at 16 kHz: small enough that playback starts early, large enough not to flood the output queue. */
export const CHUNK_SAMPLES = SAMPLE_RATE / 10;

/**
 * Gathers synthesized samples, however they arrive, into chunks of a fixed
 * size; the last chunk of a sentence may be shorter.
 */
export class ChunkBuffer {
  private buffer: Int16Array;
  private length = 0;

  constructor(private readonly chunkSamples = CHUNK_SAMPLES) {
    this.buffer = new Int16Array(chunkSamples * 2);
  }

  /** Adds samples; returns every whole chunk now available. */
  push(samples: Int16Array): Int16Array[] {
    if (this.length + samples.length > this.buffer.length) {
      const grown = new Int16Array(Math.max(this.length + samples.length, this.buffer.length * 2));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(samples, this.length);
    this.length += samples.length;
    const chunks: Int16Array[] = [];
    let start = 0;
    while (this.length - start >= this.chunkSamples) {
      chunks.push(this.buffer.slice(start, start + this.chunkSamples));
      start += this.chunkSamples;
    }
    this.buffer.copyWithin(0, start, this.length);
    this.length -= start;
    return chunks;
  }

  /** What is left, as one short chunk (none when empty). */
  flush(): Int16Array[] {
    const rest = this.buffer.slice(0, this.length);
    this.length = 0;
    return rest.length > 0 ? [rest] : [];
  }
}
