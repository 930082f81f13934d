/**
 * Full-duplex playback: the sentences of a reply are synthesized in order
 * and written to the speaker in 20 ms chunks, so a stop takes effect at the
 * next chunk boundary; every chunk written is also handed to the echo
 * canceller's render reference. A stopped reply keeps its synthesized audio
 * until the turn ends: a false interruption resumes from a sentence's start,
 * a backchannel from where the speaker was when it stopped.
 */
import { AppError, isAppError } from '../../errors/index.js';
import { FRAME_SAMPLES, SAMPLE_RATE, type AudioOutput, type Tts } from '../types.js';

/**
 * How far before the last audio handed to the device a reply goes on after
 * a backchannel: the device's queue (40 ms in full duplex, 60 in the
 * simulated room) was dropped unheard by the stop, and a syllable cut in
 * the middle is heard whole again.
 */
const CONTINUE_REWIND_MS = 100;

export interface PlayerListener {
  sentenceStarted(turnId: string, sentence: number): void;
  sentencePlayed(turnId: string, sentence: number): void;
  /** Synthesis failed: the turn cannot be spoken as written. */
  failed(turnId: string, error: AppError): void;
}

export interface DuplexPlayerOptions {
  output: AudioOutput;
  tts: Tts;
  /** Makes a sentence speakable (markdown, emoji, URLs); '' = nothing to say. */
  sanitize: (text: string) => string;
  listener: PlayerListener;
  /** Every chunk exactly as written to the speaker (the echo canceller's render reference). */
  onRendered?: (chunk: Int16Array) => void;
  /** A chunk's write resolved: it went to the device, at the device's pace (the render side of the drift check). */
  onHandedOff?: (samples: number) => void;
  /** Samples per chunk written: the granularity of a stop (default 20 ms). */
  chunkSamples?: number;
  /** Chunks handed to the output before waiting for the first of them (default 3): a device must never run dry mid-sentence. */
  chunksAhead?: number;
}

interface SentenceAudio {
  samples: Int16Array[];
  length: number;
  /** Synthesis has finished (or failed, or there was nothing to say). */
  complete: boolean;
}

interface Playback {
  turnId: string;
  signal: AbortSignal;
  sentences: SentenceAudio[];
  /** The sentence playing or next to play, and the sample in it. */
  cursor: number;
  offset: number;
  /** Where the audio handed to the device so far ends (sentence and sample): where a stop left the listener. */
  heard: { sentence: number; offset: number };
  held: boolean;
  /** Bumped by every stop and resume: a write that settles for an older epoch reports nothing. */
  epoch: number;
  /** No more sentences will be added (the LLM finished). */
  ended: boolean;
  synthesis: Promise<void>;
  wake: (() => void) | undefined;
  done: Promise<void>;
}

export class DuplexPlayer {
  private current: Playback | undefined;
  private readonly chunkSamples: number;

  constructor(private readonly options: DuplexPlayerOptions) {
    this.chunkSamples = options.chunkSamples ?? FRAME_SAMPLES;
  }

  /** Audio of the current turn is being written (not held, not finished). */
  get playing(): boolean {
    const p = this.current;
    return p !== undefined && !p.held && p.sentences[p.cursor] !== undefined;
  }

  /** A new reply; a reply still playing is dropped. */
  begin(turnId: string, signal: AbortSignal): void {
    this.abort();
    const playback: Playback = {
      turnId,
      signal,
      sentences: [],
      cursor: 0,
      offset: 0,
      heard: { sentence: 0, offset: 0 },
      held: false,
      epoch: 0,
      ended: false,
      synthesis: Promise.resolve(),
      wake: undefined,
      done: Promise.resolve(),
    };
    this.current = playback;
    playback.done = this.play(playback);
    signal.addEventListener('abort', () => this.abort(turnId), { once: true });
  }

  /** Queues a sentence of `turnId` (numbered in the order added); synthesis starts once the ones before it are done. */
  add(turnId: string, text: string, language: string): number {
    const p = this.playbackOf(turnId);
    if (!p) return -1;
    const audio: SentenceAudio = { samples: [], length: 0, complete: false };
    const index = p.sentences.push(audio) - 1;
    p.synthesis = p.synthesis.then(() => this.synthesize(p, audio, text, language));
    return index;
  }

  /** The reply has no more sentences: playback ends after the last. */
  end(turnId: string): void {
    const p = this.playbackOf(turnId);
    if (!p) return;
    p.ended = true;
    this.wakeUp(p);
  }

  /** Stops at the chunk boundary and drops what the speaker still has queued; the audio stays for a resume. */
  stop(turnId: string): void {
    const p = this.playbackOf(turnId);
    if (!p || p.held) return;
    p.held = true;
    p.epoch += 1;
    this.options.output.clear();
  }

  /** Plays again from the start of `sentence`. */
  resumeFrom(turnId: string, sentence: number): void {
    const p = this.playbackOf(turnId);
    if (!p) return;
    p.cursor = Math.max(0, sentence);
    p.offset = 0;
    p.held = false;
    p.epoch += 1;
    this.wakeUp(p);
  }

  /**
   * Plays on from where the stop left it: the audio handed to the device before it, less
   * CONTINUE_REWIND_MS (not before its sentence's start); a stop between sentences, after one was
   * handed over whole, goes on with the next.
   */
  continueFrom(turnId: string): void {
    const p = this.playbackOf(turnId);
    if (!p) return;
    const { sentence, offset } = p.heard;
    const audio = p.sentences[sentence];
    if (audio?.complete && offset >= audio.length) {
      p.cursor = sentence + 1;
      p.offset = 0;
    } else {
      p.cursor = sentence;
      p.offset = Math.max(0, offset - (CONTINUE_REWIND_MS * SAMPLE_RATE) / 1000);
    }
    p.held = false;
    p.epoch += 1;
    this.wakeUp(p);
  }

  /** Drops the reply (all of it, or only if it is `turnId`'s); harmless to repeat. */
  abort(turnId?: string): void {
    const p = this.current;
    if (!p || (turnId !== undefined && p.turnId !== turnId)) return;
    this.current = undefined;
    if (!p.held) this.options.output.clear();
    p.held = true;
    p.epoch += 1;
    this.wakeUp(p);
  }

  /** Resolves when the current reply has been played to its end (or dropped). */
  async finished(): Promise<void> {
    await this.current?.done;
  }

  private playbackOf(turnId: string): Playback | undefined {
    return this.current?.turnId === turnId ? this.current : undefined;
  }

  private async synthesize(p: Playback, audio: SentenceAudio, text: string, language: string): Promise<void> {
    try {
      const speakable = this.options.sanitize(text);
      if (speakable === '' || p.signal.aborted) return;
      for await (const chunk of this.options.tts.synthesize(speakable, { language, signal: p.signal })) {
        if (this.current !== p) return;
        audio.samples.push(chunk);
        audio.length += chunk.length;
        this.wakeUp(p);
      }
    } catch (error) {
      if (p.signal.aborted || isAppError(error, 'TTS_CANCELLED')) return;
      const failure = isAppError(error) ? error : new AppError('TTS_FAILED', `speech synthesis failed: ${String(error)}`, { cause: error });
      if (this.current === p) this.options.listener.failed(p.turnId, failure);
    } finally {
      audio.complete = true;
      this.wakeUp(p);
    }
  }

  /**
   * Hands chunks to the output a few ahead of the one playing (a write
   * resolves once its audio has gone to the device; waiting for each before
   * queueing the next would leave the device silence between them). A
   * sentence counts as started when its first chunk has gone to the device,
   * and as played when its last one has.
   */
  private async play(p: Playback): Promise<void> {
    const { output, listener, onRendered } = this.options;
    const ahead = this.options.chunksAhead ?? 3;
    const inFlight: Promise<void>[] = [];
    while (this.current === p) {
      const audio = p.held ? undefined : p.sentences[p.cursor];
      if (!audio) {
        if (p.ended && !p.held && p.cursor >= p.sentences.length) break;
        await this.sleep(p);
        continue;
      }
      if (p.offset < audio.length) {
        const chunk = this.chunkAt(audio, p.offset);
        if (chunk.length < this.chunkSamples && !audio.complete) {
          await this.sleep(p); // a partial chunk: wait for more audio, or the sentence's end
          continue;
        }
        const sentence = p.cursor;
        const first = p.offset === 0;
        const epoch = p.epoch;
        p.offset += chunk.length;
        const heard = { sentence, offset: p.offset };
        const written = output.write(chunk).then(
          () => {
            if (this.current === p && p.epoch === epoch) {
              p.heard = heard;
              this.options.onHandedOff?.(chunk.length);
            }
            if (first && this.current === p && p.epoch === epoch) listener.sentenceStarted(p.turnId, sentence);
          },
          () => undefined, // a closed device: the turn ends with the voice
        );
        onRendered?.(chunk);
        inFlight.push(written);
        if (inFlight.length >= ahead) await inFlight.shift();
        continue;
      }
      if (!audio.complete) {
        await this.sleep(p);
        continue;
      }
      const played = p.cursor;
      const epoch = p.epoch;
      p.cursor += 1;
      p.offset = 0;
      // The writes in flight never reject (a closed device is `() => undefined` above).
      void (inFlight[inFlight.length - 1] ?? Promise.resolve()).then(() => {
        if (this.current === p && p.epoch === epoch) listener.sentencePlayed(p.turnId, played);
      });
    }
    await Promise.all(inFlight);
  }

  /** Up to chunkSamples samples of the sentence from `offset`. */
  private chunkAt(audio: SentenceAudio, offset: number): Int16Array {
    const out = new Int16Array(Math.min(this.chunkSamples, audio.length - offset));
    let skip = offset;
    let filled = 0;
    for (const piece of audio.samples) {
      if (skip >= piece.length) {
        skip -= piece.length;
        continue;
      }
      const take = piece.subarray(skip, skip + out.length - filled);
      out.set(take, filled);
      filled += take.length;
      skip = 0;
      if (filled === out.length) break;
    }
    return out;
  }

  private sleep(p: Playback): Promise<void> {
    return new Promise((resolve) => {
      p.wake = resolve;
    });
  }

  private wakeUp(p: Playback): void {
    const wake = p.wake;
    p.wake = undefined;
    wake?.();
  }
}
