import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../errors/index.js';
import { allowListedEnv, runCommand } from '../../process/index.js';
import { encodeWav } from '../audio/index.js';
import { SAMPLE_RATE, type Stt, type Transcript } from '../types.js';
import { STT_ENGINE_FAILED, STT_TIMEOUT, lastErrorLine, requirePositiveMs, sttCancelled } from './errors.js';
import { POCKETSPHINX_MODEL, modelArguments, resolvePocketsphinxModel, type PocketsphinxModelOptions } from './pocketsphinx-model.js';

export const POCKETSPHINX_DEFAULTS = {
  binary: 'pocketsphinx_continuous',
  ...POCKETSPHINX_MODEL,
  // A 7 s clip takes about 2 s on one core with the full language model.
  timeoutMs: 30_000,
} as const;

/** Flags this class sets itself; pocketsphinx refuses a flag given twice. */
const OWN_FLAGS = new Set(['hmm', 'dict', 'lm', 'jsgf', 'infile', 'time', 'logfn']);

export interface PocketsphinxOptions extends PocketsphinxModelOptions {
  /** Program name (looked up in PATH) or path. */
  binary?: string;
  timeoutMs?: number;
  /** Where the utterance's temporary WAV is written; the OS temp folder by default. */
  tmpDir?: string;
}

/**
 * Offline recognition with CMU pocketsphinx 0.8 (Debian's 5prealpha build),
 * one `pocketsphinx_continuous -infile` run per utterance (runCommand:
 * its own process group, killed whole on timeout or abort). No
 * partials: the program only prints a segment's hypothesis once the
 * segment is decoded.
 */
export class PocketsphinxStt implements Stt {
  readonly name = 'pocketsphinx_continuous';
  private readonly argv: string[];
  private readonly language: string;
  private readonly timeoutMs: number;
  private readonly tmpDir: string | undefined;

  constructor(options: PocketsphinxOptions = {}) {
    const model = resolvePocketsphinxModel(options, OWN_FLAGS);
    // -time yes adds one line per word with its posterior probability: the confidence.
    this.argv = [
      options.binary ?? POCKETSPHINX_DEFAULTS.binary,
      '-time',
      'yes',
      ...modelArguments(model),
      ...Object.entries(model.flags).flatMap(([name, value]) => [`-${name}`, value]),
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
        // The process module's allow-list; the PATH default for a daemon started without one.
        env: { PATH: '/usr/bin:/bin', ...allowListedEnv(process.env) },
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
