export { pacedFrames, systemClock, sleepUntil, type AudioClock, type PacedFramesOptions } from './clock.js';
export { concatSamples, floatToInt16, int16ToFloat, mixToMono } from './pcm.js';
export { Resampler, fromVoiceFormat, resample, toVoiceFormat } from './resample.js';
export { encodeWav, parseWav, readWav, writeWav, type WavAudio } from './wav.js';
export { WavFileInput, type WavFileInputOptions } from './wav-file-input.js';
export { WavFileOutput, type WavFileOutputOptions } from './wav-file-output.js';
export { bestMatch } from './correlation.js';
export { BAND_COUNT, BandLevels } from './band-levels.js';
