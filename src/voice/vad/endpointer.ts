/**
 * Finds utterances in a stream of 20 ms frames: buffers them into the VAD's
 * windows, runs the speech detector on the probabilities, and hands out each
 * utterance's audio with padding before the onset (the first word is never
 * clipped) and after the last voiced window. Time is counted in samples, so
 * the same audio gives the same segments however fast it arrives.
 */
import { AppError } from '../../errors/index.js';
import { FRAME_SAMPLES, SAMPLE_RATE, type Vad } from '../types.js';
import { resolveEndpointerConfig, type EndpointerConfig } from './endpointer-config.js';
import { SampleBuffer } from './sample-buffer.js';
import { SpeechDetector } from './speech-detector.js';
import { SerialQueue } from '../../serial-queue/index.js';

export interface SpeechStartEvent {
  type: 'speech_start';
  /** The frame where speech began (the onset, before padding). */
  frameIndex: number;
  /** The last frame pushed when speech was confirmed: the detection latency is the difference. */
  detectedAtFrameIndex: number;
  /** The frame where `samples` begins (the onset less the prefix padding). */
  audioStartFrameIndex: number;
  /** The utterance so far, prefix padding included, up to the last sample pushed: a streaming recognizer's pre-roll. */
  samples: Int16Array;
}

export interface SpeechEndEvent {
  type: 'speech_end';
  /** The onset frame, as in speech_start. */
  frameIndex: number;
  /** The frame after the last voiced one. */
  endFrameIndex: number;
  detectedAtFrameIndex: number;
  /** The frame where `samples` begins (the onset less the prefix padding). */
  audioStartFrameIndex: number;
  /** The utterance, 16 kHz mono, padded on both sides. */
  samples: Int16Array;
  /**
   * What ended it: the sentence check after the shorter silence (`complete`), the whole end
   * silence (`silence`), or the end of the input (`stopped`: flush).
   */
  rule: 'complete' | 'silence' | 'stopped';
  /** The silence after the last voiced window when it ended, ms. */
  silenceMs: number;
}

export type EndpointerEvent = SpeechStartEvent | SpeechEndEvent;

/** What an utterance's words say of its end: a finished sentence, words that are not one yet, or nothing. */
export type WordsVerdict = 'finished' | 'open' | 'unknown';

const samplesOf = (ms: number) => Math.round((ms * SAMPLE_RATE) / 1000);
const msOf = (samples: number) => Math.round((samples * 1000) / SAMPLE_RATE);
const frameOf = (sample: number) => Math.floor(sample / FRAME_SAMPLES);
const alignDown = (sample: number) => frameOf(sample) * FRAME_SAMPLES;
const alignUp = (sample: number) => Math.ceil(sample / FRAME_SAMPLES) * FRAME_SAMPLES;

export class Endpointer {
  readonly config: EndpointerConfig;
  private readonly vad: Vad;
  private readonly detector: SpeechDetector;
  private readonly prefixSamples: number;
  private readonly suffixSamples: number;
  private readonly sentenceEndSamples: number;
  private readonly endSilenceSamples: number;
  private readonly unfinishedSamples: number;
  /** What the words of the utterance so far say of its end (the recognizer's view). */
  private endCheck: ((silenceMs: number) => WordsVerdict) | undefined;
  /** Told the silence so far (0 when voiced) after every window of confirmed speech. */
  private pauseListener: ((silenceMs: number) => void) | undefined;
  private readonly buffer = new SampleBuffer();
  /** Start of the next VAD window; samples before it have been scored. */
  private nextWindow = 0;
  /** Where the current utterance's audio begins, and where the previous one's ended (padding never overlaps it). */
  private audioStart = 0;
  private previousEnd = 0;
  private readonly queue = new SerialQueue();
  /** Bumped by reset(), so work queued or begun before it does not touch the new stream. */
  private generation = 0;

  constructor(vad: Vad, config: Partial<EndpointerConfig> = {}) {
    this.vad = vad;
    this.config = resolveEndpointerConfig(config);
    this.prefixSamples = samplesOf(this.config.prefixPaddingMs);
    this.suffixSamples = samplesOf(this.config.suffixPaddingMs);
    this.sentenceEndSamples = samplesOf(this.config.sentenceEndSilenceMs);
    this.endSilenceSamples = samplesOf(this.config.endSilenceMs);
    this.unfinishedSamples = samplesOf(this.config.unfinishedSilenceMs);
    this.detector = new SpeechDetector({
      threshold: this.config.threshold,
      negativeThreshold: this.config.negativeThreshold,
      minSpeechSamples: samplesOf(this.config.minSpeechMs),
      endSilenceSamples: this.endSilenceSamples,
      // The longest end: the endpointer ends speech sooner by its words (endRule).
      speechEndSilenceSamples: Math.max(this.endSilenceSamples, this.unfinishedSamples),
    });
    this.vad.reset();
  }

  /** Feeds one frame; resolves to the events it completed. Calls run in order. */
  push(samples: Int16Array): Promise<EndpointerEvent[]> {
    return this.serial(async (generation) => {
      this.buffer.append(samples);
      return this.score(false, generation);
    });
  }

  /** The input ended: scores the partial last window and ends an utterance under way; then starts afresh. */
  flush(): Promise<EndpointerEvent[]> {
    return this.serial(async (generation) => {
      const events = await this.score(true, generation);
      if (generation !== this.generation) return [];
      if (this.detector.finish() === 'end') events.push(this.endEvent('stopped'));
      this.restart();
      return events;
    });
  }

  /** The confirmed utterance under way, prefix padding included, up to the last sample pushed; undefined outside one. */
  private utteranceSoFar(): Int16Array | undefined {
    return this.detector.state === 'speech' ? this.buffer.slice(this.audioStart, this.buffer.end) : undefined;
  }

  /**
   * Asked during the silence after speech what its words say: `finished` ends the utterance
   * once `sentenceEndSilenceMs` of silence followed them, `open` (not a finished sentence)
   * waits `unfinishedSilenceMs`, `unknown` the usual `endSilenceMs`. Undefined: always the usual.
   * It is told the silence so far, so that words the recognizer has not caught up with can wait.
   */
  setEndCheck(check: ((silenceMs: number) => WordsVerdict) | undefined): void {
    this.endCheck = check;
  }

  /**
   * Called after every VAD window of confirmed speech with the silence since its last voiced
   * window (0 for a voiced one): a pause the listener may act on (preemptive generation)
   * before the utterance ends. Not called for the window that ends it.
   */
  setPauseListener(listener: ((silenceMs: number) => void) | undefined): void {
    this.pauseListener = listener;
  }

  /**
   * Forgets the stream (and the VAD's state); positions count from 0 again.
   * Frames pushed before it, even those still queued or being scored, are
   * dropped and their calls resolve to no events.
   */
  reset(): void {
    this.generation++;
    this.restart();
  }

  private serial(task: (generation: number) => Promise<EndpointerEvent[]>): Promise<EndpointerEvent[]> {
    const generation = this.generation;
    return this.queue.run(() => (generation === this.generation ? task(generation) : []));
  }

  private async score(final: boolean, generation: number): Promise<EndpointerEvent[]> {
    const events: EndpointerEvent[] = [];
    const size = this.vad.frameSamples;
    while (this.buffer.end - this.nextWindow >= size || (final && this.buffer.end > this.nextWindow)) {
      const start = this.nextWindow;
      const window = new Int16Array(size);
      // The last window of a stream is padded with silence.
      window.set(this.buffer.slice(start, start + size));
      const probability = await this.vad.probability(window);
      if (generation !== this.generation) return [];
      if (!Number.isFinite(probability)) throw new AppError('VAD_OUTPUT_INVALID', `the VAD returned ${probability}`);
      this.nextWindow = start + size;
      let transition = this.detector.step(start, size, probability);
      let rule: SpeechEndEvent['rule'] = 'silence';
      const byWords = transition === null ? this.endByWords() : undefined;
      if (byWords) {
        transition = this.detector.endNow();
        rule = byWords;
      }
      if (transition === null && this.detector.state === 'speech') this.pauseListener?.(msOf(this.detector.silentSamples));
      if (transition === 'start') {
        this.audioStart = alignDown(Math.max(this.previousEnd, this.detector.onsetSample - this.prefixSamples));
        events.push({
          type: 'speech_start',
          frameIndex: frameOf(this.detector.onsetSample),
          detectedAtFrameIndex: this.lastFrame(),
          audioStartFrameIndex: frameOf(this.audioStart),
          samples: this.utteranceSoFar() ?? new Int16Array(0),
        });
      } else if (transition === 'end') {
        events.push(this.endEvent(rule));
      }
      this.trim();
    }
    return events;
  }

  /** Ends speech before the detector's longest silence: a finished sentence after the short one, else the usual one unless the words stop open. */
  private endByWords(): 'complete' | 'silence' | undefined {
    if (this.detector.state !== 'speech') return undefined;
    const silent = this.detector.silentSamples;
    const early = this.sentenceEndSamples > 0 && silent >= this.sentenceEndSamples;
    const usual = silent >= this.endSilenceSamples;
    if (!early && !usual) return undefined;
    const verdict = this.endCheck?.(msOf(silent)) ?? 'unknown';
    if (early && verdict === 'finished') return 'complete';
    if (usual && !(verdict === 'open' && this.unfinishedSamples > this.endSilenceSamples)) return 'silence';
    return undefined;
  }

  private endEvent(rule: SpeechEndEvent['rule']): SpeechEndEvent {
    const end = Math.min(this.buffer.end, alignUp(this.detector.voicedEndSample + this.suffixSamples));
    const event: SpeechEndEvent = {
      type: 'speech_end',
      frameIndex: frameOf(this.detector.onsetSample),
      endFrameIndex: Math.ceil(Math.min(this.detector.voicedEndSample, this.buffer.end) / FRAME_SAMPLES),
      detectedAtFrameIndex: this.lastFrame(),
      audioStartFrameIndex: frameOf(this.audioStart),
      samples: this.buffer.slice(this.audioStart, end),
      rule,
      silenceMs: msOf(this.detector.silentSamples),
    };
    this.previousEnd = end;
    return event;
  }

  /** Keeps only what a future utterance could still need. */
  private trim(): void {
    if (this.detector.state !== 'idle') return;
    this.buffer.discardBefore(alignDown(Math.max(this.previousEnd, this.nextWindow - this.prefixSamples)));
  }

  private lastFrame(): number {
    return Math.max(0, frameOf(this.buffer.end - 1));
  }

  private restart(): void {
    this.detector.reset();
    this.buffer.clear();
    this.vad.reset();
    this.nextWindow = 0;
    this.audioStart = 0;
    this.previousEnd = 0;
  }
}
