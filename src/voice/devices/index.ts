export { CaptureClock } from './capture-clock.js';
export { FrameAssembler } from './capture-frames.js';
export { PortAudioInput, type CaptureStats, type PortAudioInputOptions } from './portaudio-input.js';
export { PortAudioOutput, type PortAudioOutputOptions } from './portaudio-output.js';
export {
  chooseDevice,
  listDevices,
  loadPortAudio,
  type Direction,
  type PortAudioBinding,
  type PortAudioDevice,
  type PortAudioStream,
  type PortAudioStreamOptions,
} from './portaudio.js';
