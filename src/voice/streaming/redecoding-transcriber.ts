import { concatSamples } from '../audio/index.js';
import type { PartialTranscript, Stt, Transcript } from '../types.js';
import { SAMPLE_RATE } from '../types.js';
import { stablePrefix } from '../stt/index.js';

export interface RedecodingOptions {
  /** How often the growing utterance is decoded again. */
  intervalMs: number;
  /** No partial before this much audio (a decode of a syllable is noise). */
  minAudioMs?: number;
  /** Timers, injectable for virtual time. */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/**
 * Streaming recognition for engines that only decode whole utterances
 * (whisper-server, pocketsphinx): while the user speaks, the audio so far
 * is decoded again every `intervalMs`, giving partial transcripts (for the
 * page and the terminal) and their stable prefix; `finish` decodes the whole
 * utterance once more for the final transcript, the only one that reaches
 * the LLM. One decode at a time: a tick that finds one running is skipped.
 */
export class RedecodingTranscriber {
  private chunks: Int16Array[] = [];
  private samples = 0;
  private timer: unknown;
  private running: Promise<void> | undefined;
  private lastPartial = '';
  private closed = false;
  private readonly listeners = new Set<(partial: PartialTranscript) => void>();
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(
    private readonly stt: Stt,
    private readonly options: RedecodingOptions,
    private readonly signal?: AbortSignal,
  ) {
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as NodeJS.Timeout));
    this.schedule();
  }

  onPartial(listener: (partial: PartialTranscript) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** More of the utterance. */
  push(samples: Int16Array): void {
    if (this.closed) return;
    this.chunks.push(samples);
    this.samples += samples.length;
  }

  /** The utterance ended: no more partials; the whole of it decoded once more. */
  async finish(): Promise<Transcript> {
    this.stop();
    await this.running;
    return this.decode(this.audio(), true);
  }

  /** Drops the utterance (an interruption that came to nothing, a cancelled turn). */
  stop(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = this.setTimer(() => this.tick(), this.options.intervalMs);
  }

  private tick(): void {
    this.timer = undefined;
    const audioMs = (this.samples / SAMPLE_RATE) * 1000;
    if (!this.running && audioMs >= (this.options.minAudioMs ?? 300)) {
      this.running = this.partial(audioMs).finally(() => {
        this.running = undefined;
      });
    }
    this.schedule();
  }

  private async partial(audioMs: number): Promise<void> {
    let transcript: Transcript;
    try {
      transcript = await this.decode(this.audio(), false);
    } catch {
      // A failed partial is only a missing preview; the final decode reports errors.
      return;
    }
    if (this.closed) return;
    const stable = stablePrefix(this.lastPartial, transcript.text);
    this.lastPartial = transcript.text;
    for (const listener of this.listeners) listener({ text: transcript.text, stable, audioMs });
  }

  /** The utterance so far, as pushed. */
  audio(): Int16Array {
    // Joined once per decode, and kept joined: the next push appends to one chunk.
    if (this.chunks.length !== 1) this.chunks = [concatSamples(this.chunks)];
    return this.chunks[0] ?? new Int16Array(0);
  }

  private async decode(audio: Int16Array, final: boolean): Promise<Transcript> {
    let last: Transcript = { text: '', final };
    for await (const result of this.stt.transcribe(audio, { signal: this.signal })) if (result.final) last = result;
    return { ...last, final };
  }
}
