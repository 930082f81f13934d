/**
 * Loads the live pocketsphinx addon (native/pocketsphinx, built by
 * scripts/build-pocketsphinx.sh) lazily, the first time a decoder is wanted,
 * so that importing the voice never needs it. The addon keeps a pocketsphinx
 * 0.8 decoder resident and decodes audio as it arrives; every decoder call
 * (ps_init too) runs on the libuv thread pool.
 */
import { loadNativeAddon, nativeAddonPath } from '../../native-addon/index.js';

/** The addon is not built, or the file does not load (a missing shared library, another Node's build). */
export const STT_ADDON_UNAVAILABLE = 'STT_ADDON_UNAVAILABLE';

export interface NativeDecoderOptions {
  /** Acoustic model folder (`-hmm`). */
  hmm: string;
  /** Pronunciation dictionary (`-dict`). */
  dict: string;
  /** Language model (`-lm`): exactly one of `lm` / `jsgf`. */
  lm?: string;
  /** JSGF grammar (`-jsgf`). */
  jsgf?: string;
  /**
   * More decoder flags by name without the dash, e.g. `{ fwdflat: 'no' }`;
   * an unknown name or a value of the wrong type rejects, naming it.
   * `logfn` (none by default: the decoder is quiet) sends sphinxbase's log
   * to a file, for the whole process. The model's feat.params overrides the
   * front-end flags it sets (pocketsphinx reads it after the flags).
   */
  flags?: Record<string, string>;
}

export interface NativeHypothesis {
  /** ps_get_hyp: '' when none. */
  text: string;
  /**
   * 10 ms feature frames searched so far in this utterance: ps_get_n_frames
   * less one (it counts one before any frame). Frames the front end's VAD
   * drops as silence (-remove_silence, on by default) are not searched; the
   * word search trails this by -pl_window (5) frames until endUtterance.
   */
  frames: number;
  /**
   * How strongly the search expects the sentence to end after the
   * hypothesis: with a language model, P(</s> | the hypothesis' last two
   * words) from the model (0..1, raw: no language weight); with a JSGF
   * grammar, 1 when the words are a complete sentence of the grammar, else
   * 0. 0 for an empty hypothesis.
   */
  endProbability: number;
}

export interface NativeWord {
  /** Without an alternative pronunciation's "(2)"; fillers (<s>, </s>, <sil>, [NOISE], ++..++) are left out. */
  word: string;
  /** From the start of the utterance: the first audio frame of the word. */
  startMs: number;
  /** The end of the word's last frame (10 ms after the end time pocketsphinx_continuous prints). */
  endMs: number;
  /** logmath_exp(ps_seg_prob), 0..1; always 1 with a grammar (pocketsphinx 0.8 computes none for an FSG). */
  posterior: number;
}

export interface NativeFinal {
  text: string;
  frames: number;
  words: NativeWord[];
  /** Mean posterior of the words; absent when there are none. */
  confidence?: number;
}

/**
 * One resident decoder. Calls run one at a time, in the order they were
 * made (the addon queues them). A call in the wrong state rejects with an
 * Error; after close() every call but close() rejects.
 */
export interface NativeDecoder {
  /** ps_start_utt. */
  startUtterance(): Promise<void>;
  /** Feeds 16 kHz mono samples (copied at the call: the buffer may be reused); the hypothesis when asked. */
  process(samples: Int16Array, wantHypothesis: boolean): Promise<NativeHypothesis | undefined>;
  /** ps_end_utt: the final hypothesis and its words. */
  endUtterance(): Promise<NativeFinal>;
  /**
   * Between utterances: puts the live cepstral mean back to the model's
   * -cmninit and restarts the front end's noise estimate, as after
   * createDecoder, so that the same audio decodes the same way. Without it
   * both adapt across utterances (to the microphone), as pocketsphinx does.
   */
  resetNormalisation(): Promise<void>;
  /** ps_free once the calls before it are done; a second close() returns the same promise. */
  close(): Promise<void>;
}

export interface PocketsphinxAddon {
  /** ps_init off the main thread (0.15-0.7 s); rejects naming a missing file or a bad flag. */
  createDecoder(options: NativeDecoderOptions): Promise<NativeDecoder>;
}

/** The built addon in the project (native/pocketsphinx). */
export function defaultPocketsphinxAddonPath(): string {
  return nativeAddonPath('pocketsphinx', 'pocketsphinx_decoder.node');
}

/** Throws AppError STT_ADDON_UNAVAILABLE, naming the fix, when the addon is missing or does not load. */
export function loadPocketsphinxAddon(path: string = defaultPocketsphinxAddonPath()): PocketsphinxAddon {
  return loadNativeAddon<PocketsphinxAddon>(path, {
    what: 'the live pocketsphinx addon',
    code: STT_ADDON_UNAVAILABLE,
    fix:
      'run `bash scripts/setup.sh` (it installs the Debian packages libpocketsphinx-dev and libsphinxbase-dev ' +
      'and builds the addon with `bash scripts/build-pocketsphinx.sh`)',
    notIt: (addon) => (typeof addon?.createDecoder === 'function' ? undefined : 'no createDecoder'),
  });
}
