/** The endpointer's settings, in probabilities and milliseconds, with defaults and validation. */
import { AppError } from '../../errors/index.js';

export interface EndpointerConfig {
  /** A window at or above this probability is speech. */
  threshold: number;
  /** A window below this is silence; in between keeps the current state (hysteresis). Default threshold - 0.15. */
  negativeThreshold: number;
  /** Voiced time needed before speech is believed: shorter bursts (a click, a cough) are not utterances. */
  minSpeechMs: number;
  /** Silence that ends an utterance. */
  endSilenceMs: number;
  /**
   * A shorter silence that ends an utterance when recognition says its words make a
   * finished sentence (see `Endpointer.setSentenceCheck`); 0 = off.
   */
  sentenceEndSilenceMs: number;
  /**
   * A longer silence that ends an utterance when its words are not a finished sentence (see
   * `Endpointer.setEndCheck`); 0 = off (endSilenceMs).
   */
  unfinishedSilenceMs: number;
  /** Audio kept before the detected onset: the model fires a little after a soft first consonant. */
  prefixPaddingMs: number;
  /** Audio kept after the last voiced window (a trailing fricative scores low); at most endSilenceMs. */
  suffixPaddingMs: number;
}

export const ENDPOINTER_DEFAULTS = {
  threshold: 0.5,
  minSpeechMs: 250,
  endSilenceMs: 500,
  sentenceEndSilenceMs: 0,
  unfinishedSilenceMs: 0,
  prefixPaddingMs: 300,
  suffixPaddingMs: 300,
} as const;

/** Silero's own rule for the default negative threshold, floored so silence can still be seen. */
const HYSTERESIS = 0.15;
const MIN_NEGATIVE_THRESHOLD = 0.01;

function invalid(key: string, what: string): AppError {
  return new AppError('VAD_CONFIG_INVALID', `endpointer ${key}: ${what}`);
}

export function resolveEndpointerConfig(partial: Partial<EndpointerConfig> = {}): EndpointerConfig {
  const threshold = partial.threshold ?? ENDPOINTER_DEFAULTS.threshold;
  const config: EndpointerConfig = {
    threshold,
    negativeThreshold: partial.negativeThreshold ?? Math.max(threshold - HYSTERESIS, MIN_NEGATIVE_THRESHOLD),
    minSpeechMs: partial.minSpeechMs ?? ENDPOINTER_DEFAULTS.minSpeechMs,
    endSilenceMs: partial.endSilenceMs ?? ENDPOINTER_DEFAULTS.endSilenceMs,
    sentenceEndSilenceMs: partial.sentenceEndSilenceMs ?? ENDPOINTER_DEFAULTS.sentenceEndSilenceMs,
    unfinishedSilenceMs: partial.unfinishedSilenceMs ?? ENDPOINTER_DEFAULTS.unfinishedSilenceMs,
    prefixPaddingMs: partial.prefixPaddingMs ?? ENDPOINTER_DEFAULTS.prefixPaddingMs,
    suffixPaddingMs: partial.suffixPaddingMs ?? ENDPOINTER_DEFAULTS.suffixPaddingMs,
  };
  if (!(config.threshold > 0 && config.threshold <= 1)) throw invalid('threshold', `must be in (0, 1], got ${config.threshold}`);
  if (!(config.negativeThreshold > 0 && config.negativeThreshold <= config.threshold)) {
    throw invalid('negativeThreshold', `must be in (0, threshold ${config.threshold}], got ${config.negativeThreshold}`);
  }
  for (const key of ['minSpeechMs', 'endSilenceMs', 'sentenceEndSilenceMs', 'unfinishedSilenceMs', 'prefixPaddingMs', 'suffixPaddingMs'] as const) {
    if (!(Number.isFinite(config[key]) && config[key] >= 0)) throw invalid(key, `must be a number of ms >= 0, got ${config[key]}`);
  }
  if (config.endSilenceMs === 0) throw invalid('endSilenceMs', 'must be above 0, or one quiet window would end every utterance');
  if (config.sentenceEndSilenceMs >= config.endSilenceMs) {
    throw invalid('sentenceEndSilenceMs', `must be below endSilenceMs (${config.endSilenceMs}), or 0 for off; got ${config.sentenceEndSilenceMs}`);
  }
  if (config.unfinishedSilenceMs !== 0 && config.unfinishedSilenceMs <= config.endSilenceMs) {
    throw invalid('unfinishedSilenceMs', `must be above endSilenceMs (${config.endSilenceMs}), or 0 for off; got ${config.unfinishedSilenceMs}`);
  }
  if (config.suffixPaddingMs > config.endSilenceMs) {
    throw invalid('suffixPaddingMs', `must be at most endSilenceMs (${config.endSilenceMs}): later audio has not been seen when speech ends`);
  }
  return config;
}
