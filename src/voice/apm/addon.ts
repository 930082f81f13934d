/**
 * Loads the native addon (native/webrtc-apm, built by scripts/build-apm.sh)
 * lazily, the first time an APM is created, so that importing the voice
 * never needs it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, messageOf } from '../../errors/index.js';

const ADDON_RELATIVE = join('native', 'webrtc-apm', 'build', 'Release', 'webrtc_apm.node');

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

const loaded = new Map<string, ApmAddon>();

/**
 * The built addon in the project: the nearest folder above this module (src/
 * when run from source, dist/src/ when built) that holds native/webrtc-apm.
 */
export function defaultApmAddonPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'native', 'webrtc-apm', 'binding.gyp'))) return join(dir, ADDON_RELATIVE);
    if (dirname(dir) === dir) return resolve(here, '..', '..', '..', ADDON_RELATIVE);
  }
}

/** Throws AppError AUDIO_APM_UNAVAILABLE, naming the fix, when the addon is missing or does not load. */
export function loadApmAddon(path: string = defaultApmAddonPath()): ApmAddon {
  const cached = loaded.get(path);
  if (cached) return cached;
  const fix = 'run `bash scripts/setup.sh` (it builds the addon with scripts/build-apm.sh)';
  if (!existsSync(path)) {
    throw new AppError('AUDIO_APM_UNAVAILABLE', `the echo-cancellation addon is not built (${path}): ${fix}`);
  }
  let addon: unknown;
  try {
    addon = createRequire(import.meta.url)(path);
  } catch (error) {
    throw new AppError('AUDIO_APM_UNAVAILABLE', `the echo-cancellation addon ${path} does not load (${messageOf(error)}): ${fix}`, {
      cause: error,
    });
  }
  if (typeof (addon as Partial<ApmAddon> | null)?.Apm !== 'function') {
    throw new AppError('AUDIO_APM_UNAVAILABLE', `${path} is not the echo-cancellation addon (no Apm class): ${fix}`);
  }
  loaded.set(path, addon as ApmAddon);
  return addon as ApmAddon;
}
