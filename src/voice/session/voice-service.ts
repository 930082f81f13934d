import { messageOf } from '../../errors/index.js';
import type { AssistantBus } from '../../events/index.js';
import { isDeviceLoss } from '../devices/index.js';
import type { MissingDevice, VoiceControl } from '../host-ports.js';
import type { VoiceSession, VoiceTurnResult } from './voice-session.js';

/**
 * The voice as the triggers drive it (the microphone switch, the HTTP API,
 * a key): one recording at a time, and no new one while a reply is being
 * worked out or spoken (turn-based: the microphone must not hear the
 * assistant). A recording ends at the end of speech or at stop.
 *
 * A sound device that went away ends the recording or the reply under way
 * with VOICE_DEVICE_LOST (the service is free again at once), and no
 * recording starts while one is missing: `missing` says which and why.
 */
export class VoiceService implements VoiceControl {
  private stop: AbortController | undefined;
  private busy = false;
  private current: Promise<VoiceTurnResult | undefined> = Promise.resolve(undefined);

  constructor(
    private readonly session: VoiceSession,
    private readonly bus: AssistantBus,
    private readonly clock: () => number = Date.now,
    private readonly devices?: { readonly missing: readonly MissingDevice[] },
  ) {}

  get missing(): readonly MissingDevice[] {
    return this.devices?.missing ?? [];
  }

  get listening(): boolean {
    return this.stop !== undefined;
  }

  /** The turn the last recording started, for tests and for shutdown. */
  get lastTurn(): Promise<VoiceTurnResult | undefined> {
    return this.current;
  }

  /** False when a recording or reply is under way, or a device is missing (said on the bus: a key or the switch has no other answer). */
  startListening(trigger: 'http' | 'switch' | 'key'): boolean {
    if (this.busy) return false;
    const missing = this.missing;
    if (missing.length > 0) {
      const message = `cannot listen: ${missing.map((device) => device.message).join('; ')}`;
      this.bus.emit({ type: 'error', stage: 'voice', code: 'VOICE_DEVICE_LOST', message, recoverable: true, atMs: this.clock() });
      return false;
    }
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
    let part: 'recording' | 'reply' = 'recording';
    try {
      const samples = await this.session.listenOnce(trigger, stop.signal);
      this.stop = undefined;
      if (!samples) {
        this.bus.emit({ type: 'voice.transcript', stage: 'stt', text: '', final: true, dropped: 'no speech', atMs: this.clock() });
        return undefined;
      }
      part = 'reply';
      return await this.session.answer(samples);
    } catch (error) {
      const lost = isDeviceLoss(error);
      const message = lost ? `the ${part} stopped: ${messageOf(error)}` : messageOf(error);
      const atMs = this.clock();
      this.bus.emit({ type: 'error', stage: 'voice', code: lost ? 'VOICE_DEVICE_LOST' : 'VOICE_FAILED', message, recoverable: true, atMs });
      // What the activity (GET /state, the page) follows: the recording gave nothing to answer (a reply's
      // playback end is the speaker's, which says so even when its drain failed).
      if (part === 'recording') this.bus.emit({ type: 'voice.transcript', stage: 'stt', text: '', final: true, dropped: 'the recording failed', atMs });
      return undefined;
    } finally {
      this.stop = undefined;
      this.busy = false;
    }
  }
}
