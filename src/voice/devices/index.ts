export { CaptureClock } from './capture-clock.js';
export { FrameAssembler } from './capture-frames.js';
export { DeviceHealth, isDeviceLoss, keepReopening, REOPEN_DELAYS_MS, type DeviceChange, type DeviceRole, type ReopenOptions } from './device-health.js';
export { PortAudioInput, type CaptureStats, type PortAudioInputOptions } from './portaudio-input.js';
export { outputChunks, PortAudioOutput, type PortAudioOutputOptions } from './portaudio-output.js';
export { RecoveringInput, type RecoveringInputOptions } from './recovering-input.js';
export { RecoveringOutput, type LosableOutput, type RecoveringOutputOptions } from './recovering-output.js';
export { watchStall, type StallWatch, type StallWatchOptions } from './stall-watch.js';
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
