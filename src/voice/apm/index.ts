export type { Apm, ApmFormat, ApmStats } from './apm.js';
export { defaultApmAddonPath, loadApmAddon } from './addon.js';
export {
  APM_SAMPLE_RATES,
  WebRtcApm,
  type ApmLevel,
  type NoiseSuppressionLevel,
  type WebRtcApmOptions,
} from './webrtc-apm.js';
