export type { Apm, ApmFormat, ApmStats } from './apm.js';
export { defaultApmAddonPath, loadApmAddon } from './addon.js';
export { Aec3Apm, type Aec3ApmOptions } from './aec3-apm.js';
export { checkCanceller, createApm, describeCanceller, ECHO_CANCELLERS, type CancellerOptions, type EchoCanceller } from './canceller.js';
export { APM_SAMPLE_RATES } from './frame-format.js';
export { LIVEKIT_FFI_PACKAGE, loadLiveKitFfi } from './livekit-ffi.js';
export { WebRtcApm, type ApmLevel, type NoiseSuppressionLevel, type WebRtcApmOptions } from './webrtc-apm.js';
