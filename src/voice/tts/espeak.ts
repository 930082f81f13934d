/**
 * Text to speech with Debian's espeak-ng: robotic, but always there, fast
 * (about 15 ms to the first audio) and in every language the assistant
 * speaks. One `espeak-ng --stdout -v VOICE` run per sentence, the text on
 * stdin; its WAV (22050 Hz mono 16-bit) is decoded and resampled while it
 * arrives, so the first 100 ms chunk is out before the sentence is done.
 */
import { AppError } from '../../errors/index.js';
import type { Tts } from '../types.js';
import { TTS_BAD_OPTIONS, TTS_ENGINE_FAILED, TTS_TIMEOUT, TTS_VOICE_UNKNOWN, ttsCancelled } from './errors.js';
import { lastLine, startEspeak, type ProcessEnd, type SpawnFn } from './espeak-process.js';
import { StreamedWavDecoder } from './wav-stream.js';

/** The espeak-ng voice per `[voice.<lang>]` key; a language not listed is tried as a voice name itself. */
export const ESPEAK_VOICES: Readonly<Record<string, string>> = {
  en: 'en-us',
  it: 'it',
  de: 'de',
  fr: 'fr-fr',
  es: 'es',
  pt: 'pt',
  nl: 'nl',
  pl: 'pl',
  ru: 'ru',
  ja: 'ja',
  zh: 'cmn',
  hi: 'hi',
};

export const ESPEAK_DEFAULTS = {
  program: 'espeak-ng',
  /** A sentence takes tens of ms; this only catches a stuck process (time the consumer holds a chunk does not count). */
  timeoutMs: 30_000,
} as const;

/**
 * espeak-ng writes up to 64 KB (1.5 s of audio) at a time; decoding that in
 * slices lets the first chunk out before the rest is resampled (~5 ms).
 */
const DECODE_SLICE_BYTES = 4096;

export interface EspeakOptions {
  /** Program name (looked up in PATH) or path. */
  program?: string;
  /** Voices per language, over ESPEAK_VOICES: `{ en: 'en-gb' }`. */
  voices?: Readonly<Record<string, string>>;
  /** Words per minute (`-s`, 80 to 450); espeak-ng's own default (175) when unset. */
  rate?: number;
  timeoutMs?: number;
  /** How the process is started; tests pass one that watches the real process. */
  spawn?: SpawnFn;
}

export class EspeakTts implements Tts {
  readonly name = 'espeak-ng';
  private readonly program: string;
  private readonly voices: Readonly<Record<string, string>>;
  private readonly rateArgs: string[];
  private readonly timeoutMs: number;
  /** Undefined: startEspeak's own (Node's spawn with three pipes). */
  private readonly spawn: SpawnFn | undefined;

  constructor(options: EspeakOptions = {}) {
    const { rate, timeoutMs = ESPEAK_DEFAULTS.timeoutMs } = options;
    if (rate !== undefined && (!Number.isInteger(rate) || rate < 80 || rate > 450)) {
      throw new AppError(TTS_BAD_OPTIONS, `the espeak-ng rate must be a whole number of words per minute from 80 to 450, not ${rate}`);
    }
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new AppError(TTS_BAD_OPTIONS, `the espeak-ng timeout must be a positive number of ms, not ${timeoutMs}`);
    this.program = options.program ?? ESPEAK_DEFAULTS.program;
    this.voices = { ...ESPEAK_VOICES, ...options.voices };
    this.rateArgs = rate === undefined ? [] : ['-s', String(rate)];
    this.timeoutMs = timeoutMs;
    this.spawn = options.spawn;
  }

  /** The espeak-ng voice for a language: the table, then the base language ("en-gb" -> "en"), then the code itself. */
  voiceFor(language: string): string {
    return this.voices[language] ?? this.voices[language.split('-')[0]!] ?? language;
  }

  async *synthesize(text: string, options: { language: string; signal?: AbortSignal }): AsyncIterable<Int16Array> {
    const { language, signal } = options;
    if (signal?.aborted) throw ttsCancelled('espeak-ng synthesis', signal.reason);
    if (text.trim() === '') return;
    const voice = this.voiceFor(language);
    const run = startEspeak(this.program, ['--stdout', '-v', voice, ...this.rateArgs], text, this.spawn);
    const decoder = new StreamedWavDecoder(`espeak-ng output (voice ${voice})`);
    let stopped: 'cancelled' | 'timeout' | undefined;
    const halt = (why: 'cancelled' | 'timeout'): void => {
      stopped ??= why;
      run.stop();
    };
    const onAbort = (): void => halt('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    // Only time spent waiting on espeak-ng counts: a consumer paced by playback may hold a chunk for long.
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => halt('timeout'), this.timeoutMs);
    };
    arm();
    try {
      try {
        for await (const bytes of run.child.stdout as AsyncIterable<Buffer>) {
          for (let at = 0; at < bytes.length && !stopped; at += DECODE_SLICE_BYTES) {
            for (const chunk of decoder.push(bytes.subarray(at, at + DECODE_SLICE_BYTES))) {
              clearTimeout(timer);
              yield chunk;
              arm();
            }
          }
          if (stopped) break;
        }
      } catch (error) {
        // A pipe torn down by a failed start or a kill; the process's end says what happened.
        if (!stopped && (await run.ended).error === undefined) throw error;
      }
      const end = await run.ended;
      if (stopped === 'cancelled') throw ttsCancelled('espeak-ng synthesis', signal?.reason);
      if (stopped === 'timeout') throw new AppError(TTS_TIMEOUT, `espeak-ng gave no audio for ${this.timeoutMs} ms`, { retryable: true });
      this.checkEnd(end, run.stderrTail(), voice, language);
      for (const chunk of decoder.end()) yield chunk;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // Also when the consumer stops early (a `break` out of the loop): no orphan process.
      run.stop();
    }
  }

  async close(): Promise<void> {
    // Nothing is kept between sentences.
  }

  private checkEnd(end: ProcessEnd, stderr: string, voice: string, language: string): void {
    if (end.error) {
      const why = end.error.code === 'ENOENT' ? 'not found (Debian package espeak-ng)' : end.error.message;
      throw new AppError(TTS_ENGINE_FAILED, `cannot run ${this.program}: ${why}`, { cause: end.error });
    }
    if (end.code === 0) return;
    const line = lastLine(stderr);
    if (/voice does not exist/i.test(line)) {
      throw new AppError(TTS_VOICE_UNKNOWN, `espeak-ng has no voice ${JSON.stringify(voice)} (for language ${language}); \`espeak-ng --voices\` lists them`);
    }
    const status = end.signal ? `was killed by ${end.signal}` : `exited with status ${end.code}`;
    throw new AppError(TTS_ENGINE_FAILED, `${this.program} ${status}${line ? `: ${line}` : ''}`);
  }
}
