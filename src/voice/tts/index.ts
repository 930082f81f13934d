export {
  TTS_BAD_OPTIONS,
  TTS_CANCELLED,
  TTS_ENGINE_FAILED,
  TTS_LANGUAGE_UNKNOWN,
  TTS_MODEL_LOAD_FAILED,
  TTS_MODEL_MISSING,
  TTS_TIMEOUT,
  TTS_VOICE_INVALID,
  TTS_VOICE_UNKNOWN,
} from './errors.js';
export { EspeakTts, ESPEAK_DEFAULTS, ESPEAK_VOICES, type EspeakOptions } from './espeak.js';
export { KokoroTts, type KokoroOptions, type KokoroVoice } from './kokoro.js';
export { checkKokoroFiles, type KokoroDtype, type KokoroFiles } from './kokoro-files.js';
export type { KokoroModel } from './kokoro-model.js';
export { phonemize } from './kokoro-phonemes.js';
export { blendStyles, listVoices, loadVoiceBlend, readVoice, styleForLength, STYLE_DIM } from './voice-blend.js';
export { sanitizeForSpeech, type SanitizeOptions } from './sanitize.js';
export { pickSentenceLanguage, sentenceLanguagePicker } from './language-pick.js';
export { CHUNK_SAMPLES } from './chunks.js';
