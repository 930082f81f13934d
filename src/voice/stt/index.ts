export {
  STT_BAD_OPTIONS,
  STT_BAD_RESPONSE,
  STT_CANCELLED,
  STT_ENGINE_FAILED,
  STT_HTTP_ERROR,
  STT_MODEL_MISSING,
  STT_PORT_BUSY,
  STT_SERVER_START_FAILED,
  STT_TIMEOUT,
  STT_UNREACHABLE,
  sttCancelled,
} from './errors.js';
export { stablePrefix } from './stable-prefix.js';
export { POCKETSPHINX_DEFAULTS, PocketsphinxStt, parsePocketsphinxOutput, type PocketsphinxOptions, type PocketsphinxResult } from './pocketsphinx.js';
export {
  DEFAULT_MIN_CONFIDENCE,
  filterTranscript,
  type TranscriptDropReason,
  type TranscriptFilterOptions,
  type TranscriptVerdict,
} from './transcript-filter.js';
export { whisperLanguageCode } from './whisper-languages.js';
export { startWhisperServer, type WhisperProcess, type WhisperProcessOptions } from './whisper-process.js';
export { WHISPER_SERVER_DEFAULT_TIMEOUT_MS, WhisperServerStt, type WhisperServerSttOptions } from './whisper-server.js';
export { RESIDENT_DEFAULTS, ResidentPocketsphinxStt, type ResidentPocketsphinxOptions } from './resident-pocketsphinx.js';
export { StableWords } from './stable-words.js';
export {
  STT_ADDON_UNAVAILABLE,
  defaultPocketsphinxAddonPath,
  loadPocketsphinxAddon,
  type NativeDecoder,
  type NativeDecoderOptions,
  type NativeFinal,
  type NativeHypothesis,
  type NativeWord,
  type PocketsphinxAddon,
} from './pocketsphinx-addon.js';
