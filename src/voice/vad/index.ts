export { Endpointer, type EndpointerEvent, type SpeechEndEvent, type SpeechStartEvent, type WordsVerdict } from './endpointer.js';
export { ENDPOINTER_DEFAULTS, resolveEndpointerConfig, type EndpointerConfig } from './endpointer-config.js';
export { SILERO_WINDOW_SAMPLES, SileroVad, sileroModelPath, type SileroVadOptions } from './silero-vad.js';
export { SpeechDetector, type DetectorSettings, type DetectorState } from './speech-detector.js';
