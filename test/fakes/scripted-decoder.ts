import type { NativeDecoder, NativeFinal, NativeHypothesis } from '../../src/voice/stt/index.js';

export interface ScriptedDecoderOptions {
  /** Words heard, one per `msPerWord` of audio since the utterance started. */
  words: string[];
  msPerWord?: number;
  /** Each process call waits for this (a decoder that falls behind). */
  gate?: () => Promise<void>;
  /** process throws on this call number (1-based), counted over the decoder's life. */
  failOnCall?: number;
}

/**
 * A stand-in for the native decoder with its state rules: an utterance must
 * be started before audio and ended once; the hypothesis is the words of the
 * audio so far. Records every call, so tests see batching and order.
 */
export function scriptedDecoder(options: ScriptedDecoderOptions): NativeDecoder & { calls: string[]; batches: number[]; utterances: number } {
  const msPerWord = options.msPerWord ?? 100;
  let samples = 0;
  let inUtterance = false;
  let closed = false;
  let processCalls = 0;
  const heardWords = (): string[] => options.words.slice(0, Math.floor(samples / 16 / msPerWord));
  const decoder = {
    calls: [] as string[],
    batches: [] as number[],
    utterances: 0,
    async startUtterance() {
      decoder.calls.push('start');
      if (closed || inUtterance) throw new Error(closed ? 'decoder closed' : 'utterance already started');
      inUtterance = true;
      samples = 0;
      decoder.utterances += 1;
    },
    async process(chunk: Int16Array, wantHypothesis: boolean): Promise<NativeHypothesis | undefined> {
      decoder.calls.push(wantHypothesis ? 'process+hyp' : 'process');
      processCalls += 1;
      if (!inUtterance) throw new Error('no utterance started');
      await options.gate?.();
      if (processCalls === options.failOnCall) throw new Error('decoder crashed (test)');
      decoder.batches.push(chunk.length);
      samples += chunk.length;
      if (!wantHypothesis) return undefined;
      return { text: heardWords().join(' '), frames: Math.floor(samples / 160), endProbability: 0 };
    },
    async endUtterance(): Promise<NativeFinal> {
      decoder.calls.push('end');
      if (!inUtterance) throw new Error('no utterance started');
      inUtterance = false;
      const words = heardWords();
      return {
        text: words.join(' '),
        frames: Math.floor(samples / 160),
        words: words.map((word, i) => ({ word, startMs: i * msPerWord, endMs: (i + 1) * msPerWord, posterior: 0.9 })),
        ...(words.length > 0 ? { confidence: 0.9 } : {}),
      };
    },
    async resetNormalisation() {
      decoder.calls.push('reset');
    },
    async close() {
      closed = true;
    },
  };
  return decoder;
}
