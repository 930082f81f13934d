import { AppError } from '../../errors/index.js';

/** The codes a `Tts` fails with; callers branch on these. */
export const TTS_CANCELLED = 'TTS_CANCELLED';
export const TTS_TIMEOUT = 'TTS_TIMEOUT';
/** A model file, or the voices folder, named in the config does not exist. */
export const TTS_MODEL_MISSING = 'TTS_MODEL_MISSING';
/** The model files exist but could not be loaded (corrupt, wrong layout, runtime error). */
export const TTS_MODEL_LOAD_FAILED = 'TTS_MODEL_LOAD_FAILED';
/** A voice name (espeak-ng voice, Kokoro voice in a blend) that the engine does not have. */
export const TTS_VOICE_UNKNOWN = 'TTS_VOICE_UNKNOWN';
/** A voice file that is not a whole number of 256-float style vectors. */
export const TTS_VOICE_INVALID = 'TTS_VOICE_INVALID';
/** `synthesize` was asked for a language that has no voice. */
export const TTS_LANGUAGE_UNKNOWN = 'TTS_LANGUAGE_UNKNOWN';
/** The synthesis program could not start, or failed. */
export const TTS_ENGINE_FAILED = 'TTS_ENGINE_FAILED';
export const TTS_BAD_OPTIONS = 'TTS_BAD_OPTIONS';

export function ttsCancelled(what: string, reason?: unknown): AppError {
  return new AppError(TTS_CANCELLED, `${what} was cancelled`, { cause: reason });
}
