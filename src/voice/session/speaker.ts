import { isAppError, messageOf } from '../../errors/index.js';
import type { AssistantBus } from '../../events/index.js';
import type { AudioOutput, Tts } from '../types.js';

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
 * started is emitted with a reply's first audio and ended once the output
 * has played everything (`finish`).
 */
export class Speaker {
  private queue: Promise<void> = Promise.resolve();
  private started = false;
  private firstAudioAtMs: number | undefined;
  private readonly clock: () => number;

  constructor(private readonly options: SpeakerOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** Queues a sentence; resolves when it has been handed to the output (not heard). */
  say(text: string, language: string, turnId?: string, signal?: AbortSignal): Promise<void> {
    const next = this.queue.then(() => this.speak(text, language, turnId, signal));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Waits until everything queued has been played, without ending the reply's playback (a spoken question mid-turn). */
  async drain(): Promise<void> {
    await this.queue;
    await this.options.output.drain();
  }

  /**
   * Waits for every queued sentence and for the output to play them; ends
   * the playback. Resolves to when the reply's first audio went out, if any did.
   */
  async finish(turnId?: string): Promise<{ firstAudioMs?: number }> {
    await this.drain();
    const firstAudioMs = this.firstAudioAtMs;
    if (this.started) this.options.bus.emit({ type: 'voice.playback', stage: 'tts', phase: 'ended', atMs: this.clock(), turnId });
    this.started = false;
    this.firstAudioAtMs = undefined;
    return firstAudioMs === undefined ? {} : { firstAudioMs };
  }

  private async speak(text: string, language: string, turnId: string | undefined, signal?: AbortSignal): Promise<void> {
    const speakable = this.options.sanitize(text);
    if (speakable === '' || signal?.aborted) return;
    try {
      for await (const chunk of this.options.tts.synthesize(speakable, { language, signal })) {
        if (!this.started) {
          this.started = true;
          this.firstAudioAtMs = this.clock();
          this.options.bus.emit({ type: 'voice.playback', stage: 'tts', phase: 'started', atMs: this.firstAudioAtMs, turnId });
        }
        await this.options.output.write(chunk);
      }
    } catch (error) {
      // A cancelled turn's sentence is not a failure.
      if (signal?.aborted || isAppError(error, 'TTS_CANCELLED')) return;
      // One sentence that cannot be said must not silence the rest of the reply.
      this.options.bus.emit({ type: 'error', stage: 'tts', code: 'TTS_FAILED', message: messageOf(error), recoverable: true, atMs: this.clock(), turnId });
    }
  }
}
