import { AppError, messageOf } from '../../errors/index.js';
import { concatSamples } from '../audio/index.js';
import { SAMPLE_RATE, type PartialTranscript, type RecognitionOptions, type RecognitionSession, type StreamingStt, type Transcript } from '../types.js';
import { STT_BAD_OPTIONS, STT_ENGINE_FAILED, requirePositiveMs, sttCancelled } from './errors.js';
import { resolvePocketsphinxModel, type PocketsphinxModelOptions } from './pocketsphinx-model.js';
import { loadPocketsphinxAddon, type NativeDecoder, type NativeDecoderOptions, type NativeHypothesis } from './pocketsphinx-addon.js';
import { StableWords } from './stable-words.js';
import { logEvent } from '../../log/index.js';
import { SerialQueue } from '../../serial-queue/index.js';

export interface ResidentPocketsphinxOptions extends PocketsphinxModelOptions {
  /** A partial hypothesis after every this many ms of audio; 0 = none. */
  partialIntervalMs?: number;
  /** How long (ms of audio) the hypothesis' last word must stay unchanged to be stable. */
  stableAfterMs?: number;
  /** The same for the words another word already follows. */
  innerStableAfterMs?: number;
  /**
   * Start every utterance from the model's cepstral means (repeatable results) instead
   * of carrying what the last utterances taught the live normalisation (it adapts to the microphone).
   */
  resetNormalisation?: boolean;
  /** The built addon (native/pocketsphinx's by default). */
  addonPath?: string;
  /** The decoder; the addon's by default (tests give a scripted one). */
  createDecoder?: (options: NativeDecoderOptions) => Promise<NativeDecoder>;
}

export const RESIDENT_DEFAULTS = {
  // P(</s> | the last two words) from the language model; a grammar says 1 or 0.
  sentenceEndProbability: 0.1,
  // A hypothesis is a backtrace of the search so far, well under a millisecond: 100 ms keeps partials near the voice.
  partialIntervalMs: 100,
  // The hypothesis' last word after 200 ms unchanged (three hypotheses at 100 ms), the words
  // before it after 100 ms. On the partials bench's clips (decoded offline, 100 ms steps): the
  // first stable word 700 ms after the onset (p95, in audio), 30 revisions of a stable word in 20
  // utterances; 200 ms for every word: 800 ms, 14 revisions; 100 ms: 700 ms, 55 (BENCHMARKS.md).
  stableAfterMs: 200,
  innerStableAfterMs: 100,
} as const;

/** Flags this engine sets from its own options. */
const OWN_FLAGS = new Set(['hmm', 'dict', 'lm', 'jsgf', 'logfn']);

/**
 * A pocketsphinx 0.8 decoder loaded once and fed as the user speaks
 * (native/pocketsphinx): each utterance is a start, the frames as they come
 * (decoded on the thread pool, batched when the decoder falls behind), a
 * hypothesis every `partialIntervalMs` of audio, and the end with its word
 * posteriors. One decoder, so utterances run one after another, in the
 * order they were started.
 */
export class ResidentPocketsphinxStt implements StreamingStt {
  readonly name = 'pocketsphinx';
  private readonly queue = new SerialQueue();
  private open: ResidentSession | undefined;
  private closed = false;

  private constructor(
    private readonly decoder: NativeDecoder,
    readonly settings: Required<Pick<ResidentPocketsphinxOptions, 'language' | 'partialIntervalMs' | 'stableAfterMs' | 'innerStableAfterMs' | 'resetNormalisation'>>,
  ) {}

  static async create(options: ResidentPocketsphinxOptions = {}): Promise<ResidentPocketsphinxStt> {
    const native: NativeDecoderOptions = resolvePocketsphinxModel(options, OWN_FLAGS);
    const partialIntervalMs = options.partialIntervalMs ?? RESIDENT_DEFAULTS.partialIntervalMs;
    if (!(Number.isInteger(partialIntervalMs) && partialIntervalMs >= 0)) {
      throw new AppError(STT_BAD_OPTIONS, `the partial interval must be a whole number of ms >= 0, not ${partialIntervalMs}`);
    }
    const stableAfterMs = requirePositiveMs('the stable-word hold', options.stableAfterMs ?? RESIDENT_DEFAULTS.stableAfterMs);
    const innerStableAfterMs = requirePositiveMs('the inner stable-word hold', options.innerStableAfterMs ?? Math.min(stableAfterMs, RESIDENT_DEFAULTS.innerStableAfterMs));
    const create = options.createDecoder ?? ((o: NativeDecoderOptions) => loadPocketsphinxAddon(options.addonPath).createDecoder(o));
    let decoder: NativeDecoder;
    try {
      decoder = await create(native);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError(STT_ENGINE_FAILED, `pocketsphinx could not load its model: ${messageOf(error)}`, { cause: error });
    }
    return new ResidentPocketsphinxStt(decoder, {
      language: options.language ?? 'en',
      partialIntervalMs,
      stableAfterMs,
      innerStableAfterMs,
      resetNormalisation: options.resetNormalisation ?? false,
    });
  }

  startUtterance(options: RecognitionOptions = {}): RecognitionSession {
    if (this.closed) throw new AppError(STT_ENGINE_FAILED, 'the pocketsphinx decoder is closed');
    // One decoder: an utterance left open ends when the next one starts.
    this.open?.cancel();
    const session = new ResidentSession(this, this.decoder, options);
    this.open = session;
    return session;
  }

  /** Runs decoder work after everything queued before it. */
  enqueue<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(work);
  }

  ended(session: ResidentSession): void {
    if (this.open === session) this.open = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.open?.cancel();
    await this.queue.idle();
    await this.decoder.close();
  }
}

type SessionState = 'open' | 'finishing' | 'done' | 'cancelled';

class ResidentSession implements RecognitionSession {
  private state: SessionState = 'open';
  private pending: Int16Array[] = [];
  private draining = false;
  private decodedSamples = 0;
  private pushedSamples = 0;
  private sinceHypothesis = 0;
  private failure: unknown;
  private lastPartial: PartialTranscript | undefined;
  /** The newest hypothesis, the audio time it last changed, and how likely the sentence ends after it. */
  private newest = { text: '', changedAtMs: 0, endProbability: 0 };
  private readonly stable: StableWords;
  private readonly intervalSamples: number;
  private readonly listeners = new Set<(partial: PartialTranscript) => void>();
  private readonly started: Promise<void>;
  /** On the caller's signal, which outlives the utterance (the voice's own): removed once the utterance is over, or every utterance would stay referenced by it. */
  private readonly onAbort = (): void => this.cancel();

  constructor(
    private readonly engine: ResidentPocketsphinxStt,
    private readonly decoder: NativeDecoder,
    private readonly options: RecognitionOptions,
  ) {
    const { partialIntervalMs, stableAfterMs, innerStableAfterMs, resetNormalisation } = engine.settings;
    this.intervalSamples = (partialIntervalMs * SAMPLE_RATE) / 1000;
    this.stable = new StableWords(stableAfterMs, innerStableAfterMs);
    this.started = engine.enqueue(async () => {
      if (resetNormalisation) await decoder.resetNormalisation();
      await decoder.startUtterance();
    });
    this.started.catch((error: unknown) => (this.failure ??= error));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (options.signal?.aborted) this.cancel();
  }

  push(samples: Int16Array): void {
    if (this.state !== 'open' || samples.length === 0) return;
    this.pushedSamples += samples.length;
    this.pending.push(samples);
    if (this.draining) return;
    this.draining = true;
    // drain() keeps its failure in `failure`, which finish() throws.
    void this.engine.enqueue(() => this.drain());
  }

  onPartial(listener: (partial: PartialTranscript) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async finish(): Promise<Transcript> {
    if (this.state === 'cancelled') throw sttCancelled('pocketsphinx recognition', this.options.signal?.reason);
    if (this.state !== 'open') throw new AppError(STT_ENGINE_FAILED, 'this utterance was already finished');
    this.state = 'finishing';
    // No longer open: the next utterance may start (it queues behind this one's end).
    this.engine.ended(this);
    const final = this.engine.enqueue(async () => {
      await this.drain();
      await this.started;
      return this.decoder.endUtterance();
    });
    try {
      const result = await final;
      if (this.failure !== undefined) throw this.failure;
      // cancel() may have run while the end was decoded.
      const cancelled = (this.state as SessionState) === 'cancelled';
      this.state = 'done';
      if (cancelled) throw sttCancelled('pocketsphinx recognition', this.options.signal?.reason);
      return { text: result.text, final: true, language: this.engine.settings.language, ...(result.confidence === undefined ? {} : { confidence: result.confidence }) };
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError(STT_ENGINE_FAILED, `pocketsphinx failed: ${messageOf(error)}`, { cause: error });
    } finally {
      this.options.signal?.removeEventListener('abort', this.onAbort);
    }
  }

  cancel(): void {
    const wasOpen = this.state === 'open';
    if (this.state === 'cancelled' || this.state === 'done') return;
    this.state = 'cancelled';
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.pending = [];
    this.listeners.clear();
    this.engine.ended(this);
    // A finish under way ends the utterance itself; an open one is ended here, its words dropped.
    // Nobody waits for these words, so a failure to end the utterance is only logged (the next start meets the decoder as it is).
    if (wasOpen) {
      this.engine
        .enqueue(() => this.started.then(() => this.decoder.endUtterance()))
        .catch((error: unknown) => logEvent('warn', 'stt_cancel_failed', { engine: 'pocketsphinx', error: messageOf(error) }));
    }
  }

  /** Decodes what was pushed, in one call per batch (more than a frame when the decoder fell behind). */
  private async drain(): Promise<void> {
    try {
      await this.started;
      while (this.pending.length > 0 && this.state !== 'cancelled' && this.failure === undefined) {
        const batch = this.pending.length === 1 ? this.pending[0]! : concatSamples(this.pending);
        this.pending = [];
        this.sinceHypothesis += batch.length;
        const wantHypothesis = this.state === 'open' && this.intervalSamples > 0 && this.sinceHypothesis >= this.intervalSamples;
        if (wantHypothesis) this.sinceHypothesis = 0;
        const hypothesis = await this.decoder.process(batch, wantHypothesis);
        this.decodedSamples += batch.length;
        if (hypothesis && this.state === 'open') this.onHypothesis(hypothesis);
      }
    } catch (error) {
      this.failure ??= error;
    } finally {
      this.draining = false;
    }
  }

  sentenceComplete(holdMs: number): boolean {
    const { text, changedAtMs, endProbability } = this.newest;
    if (this.state !== 'open' || text.trim() === '') return false;
    return this.decodedMs() - changedAtMs >= holdMs && endProbability >= RESIDENT_DEFAULTS.sentenceEndProbability;
  }

  backlogMs(): number {
    return ((this.pushedSamples - this.decodedSamples) * 1000) / SAMPLE_RATE;
  }

  hypothesis(): string {
    return this.state === 'open' ? this.newest.text : '';
  }

  private decodedMs(): number {
    return (this.decodedSamples * 1000) / SAMPLE_RATE;
  }

  private onHypothesis(hypothesis: NativeHypothesis): void {
    const audioMs = this.decodedMs();
    if (hypothesis.text !== this.newest.text) this.newest = { text: hypothesis.text, changedAtMs: audioMs, endProbability: hypothesis.endProbability };
    const stable = this.stable.update(hypothesis.text, audioMs);
    if (hypothesis.text.trim() === '') return;
    if (this.lastPartial && this.lastPartial.text === hypothesis.text && this.lastPartial.stable === stable) return;
    const partial: PartialTranscript = { text: hypothesis.text, stable, audioMs };
    this.lastPartial = partial;
    for (const listener of this.listeners) listener(partial);
  }
}
