import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../errors/index.js';
import { runCommand } from '../../process/index.js';
import { encodeWav } from '../audio/index.js';
import { SAMPLE_RATE, type Stt, type Transcript } from '../types.js';
import { STT_BAD_OPTIONS, STT_ENGINE_FAILED, STT_MODEL_MISSING, STT_TIMEOUT, lastErrorLine, requirePositiveMs, sttCancelled } from './errors.js';

/** Debian's pocketsphinx-en-us. */
const DEBIAN_MODEL = '/usr/share/pocketsphinx/model/en-us';
export const POCKETSPHINX_DEFAULTS = {
  binary: 'pocketsphinx_continuous',
  hmm: `${DEBIAN_MODEL}/en-us`,
  lm: `${DEBIAN_MODEL}/en-us.lm.bin`,
  dict: `${DEBIAN_MODEL}/cmudict-en-us.dict`,
  // A 7 s clip takes about 2 s on one core with the full language model.
  timeoutMs: 30_000,
  /**
   * The second, flat-lexicon search pass is off. Measured here: 29% word
   * errors on the librivox test clips against 40% with it (75% on one clip),
   * no worse on the cards clips, the same speed within noise (the pass is
   * about 15% of decoding CPU time; loading the model takes 0.7 s of every
   * run). Chosen on the clips the tests use: a hint, not proof.
   */
  decoder: { fwdflat: 'no' } as Readonly<Record<string, string>>,
} as const;

/** Flags this class sets itself; pocketsphinx refuses a flag given twice. */
const OWN_FLAGS = new Set(['hmm', 'dict', 'lm', 'jsgf', 'infile', 'time', 'logfn']);

export interface PocketsphinxOptions {
  /** Program name (looked up in PATH) or path. */
  binary?: string;
  /** Acoustic model folder (`-hmm`). */
  hmm?: string;
  /** Language model (`-lm`); left out when `jsgf` is given. */
  lm?: string;
  /** Pronunciation dictionary (`-dict`). */
  dict?: string;
  /** A JSGF grammar (`-jsgf`): recognition is restricted to its sentences. */
  jsgf?: string;
  /** More decoder flags, by name without the dash (`{ lw: '5' }`); they replace the defaults of the same name. */
  decoder?: Record<string, string>;
  /** The model's language (ISO 639-1), reported on every transcript; 'en' by default. */
  language?: string;
  timeoutMs?: number;
  /** Where the utterance's temporary WAV is written; the OS temp folder by default. */
  tmpDir?: string;
}

/**
 * Offline recognition with CMU pocketsphinx 0.8 (Debian's 5prealpha build),
 * one `pocketsphinx_continuous -infile` run per utterance. No partials: the
 * program only prints a segment's hypothesis once the segment is decoded.
 */
export class PocketsphinxStt implements Stt {
  readonly name = 'pocketsphinx_continuous';
  private readonly argv: string[];
  private readonly language: string;
  private readonly timeoutMs: number;
  private readonly tmpDir: string | undefined;

  constructor(options: PocketsphinxOptions = {}) {
    const model: Array<[string, string, string]> = [
      ['-hmm', options.hmm ?? POCKETSPHINX_DEFAULTS.hmm, 'acoustic model folder'],
      ['-dict', options.dict ?? POCKETSPHINX_DEFAULTS.dict, 'dictionary'],
    ];
    // With -lm present this build silently ignores -jsgf, so a grammar replaces the language model.
    if (options.jsgf !== undefined) model.push(['-jsgf', options.jsgf, 'JSGF grammar']);
    else model.push(['-lm', options.lm ?? POCKETSPHINX_DEFAULTS.lm, 'language model']);
    for (const [flag, path, what] of model) {
      if (!existsSync(path)) throw new AppError(STT_MODEL_MISSING, `pocketsphinx ${what} (${flag}) not found: ${path}`);
    }
    const decoder = { ...POCKETSPHINX_DEFAULTS.decoder, ...options.decoder };
    const own = Object.keys(decoder).find((name) => OWN_FLAGS.has(name.replace(/^-/, '')));
    if (own !== undefined) throw new AppError(STT_BAD_OPTIONS, `the pocketsphinx decoder flag ${own} is set from its own option`);
    // -time yes adds one line per word with its posterior probability: the confidence.
    this.argv = [
      options.binary ?? POCKETSPHINX_DEFAULTS.binary,
      '-time',
      'yes',
      ...model.flatMap(([flag, path]) => [flag, path]),
      ...Object.entries(decoder).flatMap(([name, value]) => [`-${name.replace(/^-/, '')}`, value]),
    ];
    this.language = options.language ?? 'en';
    this.timeoutMs = requirePositiveMs('the pocketsphinx timeout', options.timeoutMs ?? POCKETSPHINX_DEFAULTS.timeoutMs);
    this.tmpDir = options.tmpDir;
  }

  async *transcribe(audio: Int16Array, options: { signal?: AbortSignal; language?: string } = {}): AsyncIterable<Transcript> {
    const { signal } = options;
    if (signal?.aborted) throw sttCancelled('pocketsphinx recognition', signal.reason);
    if (audio.length === 0) {
      yield { text: '', final: true, language: this.language };
      return;
    }
    const dir = await mkdtemp(join(this.tmpDir ?? tmpdir(), 'stt-pocketsphinx-'));
    try {
      const file = join(dir, 'utterance.wav');
      await writeFile(file, encodeWav({ sampleRate: SAMPLE_RATE, channels: 1, samples: audio }));
      const outcome = await runCommand([...this.argv, '-infile', file], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        timeoutMs: this.timeoutMs,
        signal,
      });
      const binary = this.argv[0];
      switch (outcome.kind) {
        case 'cancelled':
          throw sttCancelled('pocketsphinx recognition', signal?.reason);
        case 'timeout':
          throw new AppError(STT_TIMEOUT, `${binary} did not finish within ${this.timeoutMs} ms`);
        case 'spawn-error':
          throw new AppError(STT_ENGINE_FAILED, `cannot run ${binary}: ${outcome.reason}`);
        case 'exited': {
          if (outcome.exitCode !== 0) {
            const how = outcome.signal === null ? `exit ${outcome.exitCode}` : `signal ${outcome.signal}`;
            throw new AppError(STT_ENGINE_FAILED, `${binary} failed (${how}): ${lastErrorLine(outcome.stderrTail)}`);
          }
          const result = parsePocketsphinxOutput(outcome.stdout);
          yield { text: result.text, final: true, language: this.language, ...(result.confidence === undefined ? {} : { confidence: result.confidence }) };
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    // Nothing runs between utterances.
  }
}

export interface PocketsphinxResult {
  text: string;
  /** Mean posterior probability of the recognized words; absent when there are none. */
  confidence?: number;
}

/** `word start end posterior`, as `-time yes` prints it; the posterior may slightly exceed 1. */
const WORD_LINE = /^(\S+)\s+(-?\d+(?:\.\d+)?)\s+(-?\d+(?:\.\d+)?)\s+(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;
/** <s>, </s>, <sil>, [NOISE], [SPEECH], ++UM++: silence and noise models, not words. */
const FILLER = /^(<[^>]*>|\[[^\]]*\]|\+\+.*\+\+)$/;

/**
 * Reads pocketsphinx_continuous's stdout: per speech segment, the hypothesis
 * line and then (with `-time yes`) its word lines. Segments are joined; a
 * segment in which nothing was recognized prints an empty hypothesis.
 */
export function parsePocketsphinxOutput(stdout: string): PocketsphinxResult {
  const hypotheses: string[] = [];
  const posteriors: number[] = [];
  for (const raw of stdout.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const word = WORD_LINE.exec(line);
    if (word === null) {
      hypotheses.push(line);
      continue;
    }
    if (FILLER.test(word[1]!)) continue;
    const posterior = Number(word[4]);
    if (Number.isFinite(posterior)) posteriors.push(Math.min(1, Math.max(0, posterior)));
  }
  const text = hypotheses.join(' ').replace(/\s+/g, ' ').trim();
  if (posteriors.length === 0) return { text };
  return { text, confidence: posteriors.reduce((sum, p) => sum + p, 0) / posteriors.length };
}
