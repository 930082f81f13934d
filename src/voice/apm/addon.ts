/**
 * Loads the native addon (native/webrtc-apm, built by scripts/build-apm.sh)
 * lazily, the first time an APM is created, so that importing the voice
 * never needs it.
 */
import { loadNativeAddon, nativeAddonPath } from '../../native-addon/index.js';

/** Options of the addon's constructor; see native/webrtc-apm/webrtc_apm.cc. */
export interface NativeApmOptions {
  sampleRate: number;
  channels: number;
  /** 0 low, 1 moderate, 2 high. */
  suppressionLevel: number;
  noiseSuppression: boolean;
  /** 0 low .. 3 very high. */
  nsLevel: number;
  gainControl: boolean;
  agcTargetDbfs: number;
  agcCompressionGainDb: number;
  highPassFilter: boolean;
}

interface NativeStatistic {
  instant: number;
  average: number;
  maximum: number;
  minimum: number;
}

export interface NativeStats {
  metricsCode: number;
  erle?: NativeStatistic;
  erl?: NativeStatistic;
  delayCode: number;
  delayMedianMs?: number;
  delayStdMs?: number;
  fractionPoorDelays?: number;
  streamHasEcho: boolean;
  speechProbability?: number;
}

/** The addon's object: methods return the library's code (0 = ok). */
export interface NativeApm {
  processRender(frame: Int16Array): number;
  processCapture(frame: Int16Array, out: Int16Array): number;
  setStreamDelayMs(ms: number): void;
  stats(): NativeStats;
  close(): void;
}

export interface ApmAddon {
  Apm: new (options: NativeApmOptions) => NativeApm;
}

/** The built addon in the project (native/webrtc-apm). */
export function defaultApmAddonPath(): string {
  return nativeAddonPath('webrtc-apm', 'webrtc_apm.node');
}

/** Throws AppError AUDIO_APM_UNAVAILABLE, naming the fix, when the addon is missing or does not load. */
export function loadApmAddon(path: string = defaultApmAddonPath()): ApmAddon {
  return loadNativeAddon<ApmAddon>(path, {
    what: 'the echo-cancellation addon',
    code: 'AUDIO_APM_UNAVAILABLE',
    fix: 'run `bash scripts/setup.sh` (it builds the addon with scripts/build-apm.sh)',
    notIt: (addon) => (typeof addon?.Apm === 'function' ? undefined : 'no Apm class'),
  });
}
