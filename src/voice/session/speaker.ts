import { isAppError, messageOf } from '../../errors/index.js';
import type { AssistantBus } from '../../events/index.js';
import type { AudioOutput, Tts } from '../types.js';
import { PreparedSpeech } from './prepared-speech.js';
import { SerialQueue } from '../../serial-queue/index.js';

export interface SpeakerOptions {
  tts: Tts;
  output: AudioOutput;
  bus: AssistantBus;
  /** Makes a sentence speakable (markdown, emoji, URLs); '' = nothing to say. */
  sanitize: (text: string) => string;
  clock?: () => number;
}

/**
 * Speaks sentences one after another, in the order given: each is
 * synthesized and its first chunk written to the output as soon as it
 * exists, while the LLM is still writing the next. `voice.playback`
 * queued is emitted when a reply's first sentence is queued, started with
 * its first audio, and ended once the output has played everything
 * (`finish`).
 */
export class Speaker {
  private readonly queue = new SerialQueue();
  private started = false;
  private queued = false;
  private firstAudioAtMs: number | undefined;
  private readonly clock: () => number;
  /** A sentence synthesized ahead (a speculative reply's first segment), played if `say` asks for it. */
  private prepared: PreparedSpeech | undefined;

  constructor(private readonly options: SpeakerOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** Queues a sentence; resolves when it has been handed to the output (not heard). */
  say(text: string, language: string, turnId?: string, signal?: AbortSignal): Promise<void> {
    // The turn may end (all its text written) before the synthesizer has made a sound: `queued` tells
    // the activity that playback is coming, so `idle` does not slip in (thinking -> idle -> speaking).
    if (!this.queued && !this.started && this.options.sanitize(text) !== '') {
      this.queued = true;
      this.options.bus.emit({ type: 'voice.playback', stage: 'tts', phase: 'queued', atMs: this.clock(), turnId });
    }
    return this.queue.run(() => this.speak(text, language, turnId, signal));
  }

  /**
   * Synthesizes a sentence now and keeps it, unheard: a later `say` of the
   * same sentence in the same language plays it without waiting for the
   * synthesizer. One at a time: a new one replaces the last.
   */
  prepare(text: string, language: string): void {
    this.dropPrepared();
    const speakable = this.options.sanitize(text);
    if (speakable !== '') this.prepared = new PreparedSpeech(speakable, language, this.options.tts);
  }

  /** Forgets the prepared sentence and stops its synthesis. */
  dropPrepared(): void {
    this.prepared?.cancel();
    this.prepared = undefined;
  }

  /** Waits until everything queued has been played, without ending the reply's playback (a spoken question mid-turn). */
  async drain(): Promise<void> {
    await this.queue.idle();
    await this.options.output.drain();
  }

  /**
   * Waits for every queued sentence and for the output to play them; ends
   * the playback. Resolves to when the reply's first audio went out, if any did.
   */
  async finish(turnId?: string): Promise<{ firstAudioMs?: number }> {
    let firstAudioMs: number | undefined;
    try {
      await this.drain();
    } finally {
      firstAudioMs = this.firstAudioAtMs;
      // A prepared sentence the reply did not say is not kept for the next one; a drain that failed
      // (the device was lost) still ends this reply's playback, or the next reply would start "speaking".
      this.dropPrepared();
      if (this.started || this.queued) this.options.bus.emit({ type: 'voice.playback', stage: 'tts', phase: 'ended', atMs: this.clock(), turnId });
      this.started = false;
      this.queued = false;
      this.firstAudioAtMs = undefined;
    }
    return firstAudioMs === undefined ? {} : { firstAudioMs };
  }


  private async speak(text: string, language: string, turnId: string | undefined, signal?: AbortSignal): Promise<void> {
    const speakable = this.options.sanitize(text);
    if (speakable === '' || signal?.aborted) return;
    // One chunk is always queued behind the one playing: waiting for each chunk to be handed to the
    // device before writing the next left the device an empty queue at every chunk boundary, and it
    // played 10 ms of silence there (a click every ~110 ms of speech).
    let previous: Promise<void> | undefined;
    const prepared = this.prepared?.matches(speakable, language) ? this.prepared : undefined;
    if (prepared) this.prepared = undefined;
    const chunks = prepared ? prepared.chunks(signal) : this.options.tts.synthesize(speakable, { language, signal });
    try {
      for await (const chunk of chunks) {
        if (!this.started) {
          this.started = true;
          this.firstAudioAtMs = this.clock();
          this.options.bus.emit({ type: 'voice.playback', stage: 'tts', phase: 'started', atMs: this.firstAudioAtMs, turnId });
        }
        const written = this.options.output.write(chunk);
        // Awaited as `previous` at the next chunk, where its failure is reported; this only keeps it from being unhandled meanwhile.
        written.catch(() => undefined);
        if (previous) await previous;
        previous = written;
      }
      await previous;
    } catch (error) {
      // A cancelled turn's sentence is not a failure.
      if (signal?.aborted || isAppError(error, 'TTS_CANCELLED')) return;
      // One sentence that cannot be said must not silence the rest of the reply.
      this.options.bus.emit({ type: 'error', stage: 'tts', code: 'TTS_FAILED', message: messageOf(error), recoverable: true, atMs: this.clock(), turnId });
    }
  }
}
