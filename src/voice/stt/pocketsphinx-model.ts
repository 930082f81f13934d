import { existsSync } from 'node:fs';
import { AppError } from '../../errors/index.js';
import { STT_BAD_OPTIONS, STT_MODEL_MISSING } from './errors.js';

/** Debian's pocketsphinx-en-us. */
const DEBIAN_MODEL = '/usr/share/pocketsphinx/model/en-us';

/** The model files and decoder flags both pocketsphinx engines start from. */
export const POCKETSPHINX_MODEL = {
  hmm: `${DEBIAN_MODEL}/en-us`,
  lm: `${DEBIAN_MODEL}/en-us.lm.bin`,
  dict: `${DEBIAN_MODEL}/cmudict-en-us.dict`,
  /**
   * The second, flat-lexicon search pass is off. Measured here: 29% word
   * errors on the librivox test clips against 40% with it (75% on one clip),
   * no worse on the cards clips, the same speed within noise (the pass is
   * about 15% of decoding CPU time; loading the model takes 0.7 s of every
   * run). Chosen on the clips the tests use: a hint, not proof.
   */
  decoder: { fwdflat: 'no' } as Readonly<Record<string, string>>,
} as const;

export interface PocketsphinxModelOptions {
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
}

/** Files that exist, and flags by name without the dash. */
export interface PocketsphinxModel {
  hmm: string;
  dict: string;
  /** Exactly one of lm / jsgf. */
  lm?: string;
  jsgf?: string;
  flags: Record<string, string>;
}

/** The model's files as pocketsphinx's own flags: -hmm, -dict, then -jsgf or -lm. */
export function modelArguments(model: PocketsphinxModel): string[] {
  return ['-hmm', model.hmm, '-dict', model.dict, ...(model.jsgf !== undefined ? ['-jsgf', model.jsgf] : ['-lm', model.lm ?? POCKETSPHINX_MODEL.lm])];
}

/**
 * The model files and flags of `options` over the defaults, each file
 * checked to exist; a flag the engine sets itself (`ownFlags`) is refused,
 * since pocketsphinx refuses a flag given twice.
 */
export function resolvePocketsphinxModel(options: PocketsphinxModelOptions, ownFlags: ReadonlySet<string>): PocketsphinxModel {
  const hmm = options.hmm ?? POCKETSPHINX_MODEL.hmm;
  const dict = options.dict ?? POCKETSPHINX_MODEL.dict;
  // With -lm present this build silently ignores -jsgf, so a grammar replaces the language model.
  const search = options.jsgf !== undefined ? { jsgf: options.jsgf } : { lm: options.lm ?? POCKETSPHINX_MODEL.lm };
  const files: Array<[string, string | undefined, string]> = [
    ['-hmm', hmm, 'acoustic model folder'],
    ['-dict', dict, 'dictionary'],
    ['-jsgf', search.jsgf, 'JSGF grammar'],
    ['-lm', search.lm, 'language model'],
  ];
  for (const [flag, path, what] of files) {
    if (path !== undefined && !existsSync(path)) throw new AppError(STT_MODEL_MISSING, `pocketsphinx ${what} (${flag}) not found: ${path}`);
  }
  const given = { ...POCKETSPHINX_MODEL.decoder, ...options.decoder };
  const own = Object.keys(given).find((name) => ownFlags.has(name.replace(/^-/, '')));
  if (own !== undefined) throw new AppError(STT_BAD_OPTIONS, `the pocketsphinx decoder flag ${own} is set from its own option`);
  const flags = Object.fromEntries(Object.entries(given).map(([name, value]) => [name.replace(/^-/, ''), value]));
  return { hmm, dict, ...search, flags };
}
