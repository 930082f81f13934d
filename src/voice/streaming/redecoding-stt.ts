import { concatSamples } from '../audio/index.js';
import { sttCancelled } from '../stt/index.js';
import type { PartialTranscript, RecognitionOptions, RecognitionSession, Stt, StreamingStt, Transcript } from '../types.js';
import { RedecodingTranscriber } from './redecoding-transcriber.js';

export interface RedecodingSttOptions {
  /** How often the growing utterance is decoded again for a partial; 0 = no partials, one decode at the end. */
  partialIntervalMs: number;
  /** No partial before this much audio. */
  minAudioMs?: number;
}

/**
 * The streaming contract for a batch engine (whisper-server, the spawned
 * pocketsphinx_continuous): each utterance is a RedecodingTranscriber, which
 * decodes the audio so far again at an interval for partials and the whole
 * utterance once more for the final. Utterances are independent: a batch
 * engine keeps no state between them.
 */
export class RedecodingStt implements StreamingStt {
  readonly name: string;

  constructor(
    private readonly stt: Stt,
    private readonly options: RedecodingSttOptions,
  ) {
    this.name = stt.name;
  }

  startUtterance(options: RecognitionOptions = {}): RecognitionSession {
    return new RedecodingSession(this.stt, this.options, options);
  }

  close(): Promise<void> {
    return this.stt.close();
  }
}

class RedecodingSession implements RecognitionSession {
  private readonly listeners = new Set<(partial: PartialTranscript) => void>();
  private readonly transcriber: RedecodingTranscriber | undefined;
  private readonly samples: Int16Array[] = [];
  private cancelled = false;

  constructor(
    private readonly stt: Stt,
    engine: RedecodingSttOptions,
    private readonly options: RecognitionOptions,
  ) {
    if (engine.partialIntervalMs <= 0) return;
    const timers = options.timers;
    this.transcriber = new RedecodingTranscriber(
      stt,
      {
        intervalMs: engine.partialIntervalMs,
        ...(engine.minAudioMs === undefined ? {} : { minAudioMs: engine.minAudioMs }),
        ...(timers ? { setTimer: (fire: () => void, ms: number) => timers.set(fire, ms), clearTimer: (handle: unknown) => timers.clear(handle) } : {}),
      },
      options.signal,
    );
    this.transcriber.onPartial((partial) => {
      for (const listener of this.listeners) listener(partial);
    });
  }

  push(samples: Int16Array): void {
    if (this.cancelled) return;
    if (this.transcriber) this.transcriber.push(samples);
    else this.samples.push(samples);
  }

  onPartial(listener: (partial: PartialTranscript) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The whole utterance decoded once more, at once: a partial decode still under way is not
   * waited for (it shares the cores with this one, as the full-duplex voice always did).
   */
  async finish(): Promise<Transcript> {
    if (this.cancelled) throw sttCancelled(`${this.stt.name} recognition`);
    this.transcriber?.stop();
    const audio = this.transcriber ? this.transcriber.audio() : concatSamples(this.samples);
    let last: Transcript = { text: '', final: true };
    const { signal, language } = this.options;
    for await (const result of this.stt.transcribe(audio, { ...(signal ? { signal } : {}), ...(language ? { language } : {}) })) if (result.final) last = result;
    return { ...last, final: true };
  }

  cancel(): void {
    this.cancelled = true;
    this.transcriber?.stop();
    this.listeners.clear();
    this.samples.length = 0;
  }
}
