export { RedecodingStt, type RedecodingSttOptions } from './redecoding-stt.js';
export { RedecodingTranscriber, type RedecodingOptions } from './redecoding-transcriber.js';
export { stablePrefix } from '../stt/index.js';
export type { PartialTranscript } from '../types.js';
