export { RedecodingTranscriber, type PartialTranscript, type RedecodingOptions } from './redecoding-transcriber.js';
export { stablePrefix } from './stable-prefix.js';
