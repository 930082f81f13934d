import { messageOf } from '../../errors/index.js';
import type { AssistantBus } from '../../events/index.js';
import type { VoiceControl } from '../host-ports.js';
import type { VoiceSession, VoiceTurnResult } from './voice-session.js';

/**
 * The voice as the triggers drive it (the microphone switch, the HTTP API,
 * a key): one recording at a time, and no new one while a reply is being
 * worked out or spoken (turn-based: the microphone must not hear the
 * assistant). A recording ends at the end of speech or at stop.
 */
export class VoiceService implements VoiceControl {
  private stop: AbortController | undefined;
  private busy = false;
  private current: Promise<VoiceTurnResult | undefined> = Promise.resolve(undefined);

  constructor(
    private readonly session: VoiceSession,
    private readonly bus: AssistantBus,
    private readonly clock: () => number = Date.now,
  ) {}

  get listening(): boolean {
    return this.stop !== undefined;
  }

  /** The turn the last recording started, for tests and for shutdown. */
  get lastTurn(): Promise<VoiceTurnResult | undefined> {
    return this.current;
  }

  startListening(trigger: 'http' | 'switch' | 'key'): boolean {
    if (this.busy) return false;
    this.busy = true;
    const stop = new AbortController();
    this.stop = stop;
    this.current = this.recordAndAnswer(trigger, stop);
    return true;
  }

  /** Ends the recording: from here on it is not listening (the answer, if any, follows). */
  stopListening(): boolean {
    if (!this.stop) return false;
    this.stop.abort();
    this.stop = undefined;
    return true;
  }

  /** Stops a recording and waits for the reply under way to end. */
  async close(): Promise<void> {
    this.stopListening();
    await this.current;
  }

  private async recordAndAnswer(trigger: 'http' | 'switch' | 'key', stop: AbortController): Promise<VoiceTurnResult | undefined> {
    try {
      const samples = await this.session.listenOnce(trigger, stop.signal);
      this.stop = undefined;
      if (!samples) {
        this.bus.emit({ type: 'voice.transcript', stage: 'stt', text: '', final: true, dropped: 'no speech', atMs: this.clock() });
        return undefined;
      }
      return await this.session.answer(samples);
    } catch (error) {
      this.bus.emit({ type: 'error', stage: 'voice', code: 'VOICE_FAILED', message: messageOf(error), recoverable: true, atMs: this.clock() });
      return undefined;
    } finally {
      this.stop = undefined;
      this.busy = false;
    }
  }
}
