/**
 * Which echo canceller runs (`[duplex] canceller`): WebRTC's current AEC3
 * through LiveKit's FFI library, or the legacy AEC of Debian's
 * webrtc-audio-processing 0.3 through the project's addon. Both are `Apm`s
 * built from the same options; what one of them cannot set is left out.
 */
import type { Apm } from './apm.js';
import { Aec3Apm } from './aec3-apm.js';
import { LIVEKIT_FFI_PACKAGE } from './livekit-ffi.js';
import { WebRtcApm, type WebRtcApmOptions } from './webrtc-apm.js';

export const ECHO_CANCELLERS = ['aec3', 'legacy'] as const;
export type EchoCanceller = (typeof ECHO_CANCELLERS)[number];

export interface CancellerOptions extends WebRtcApmOptions {
  /** AEC3's FFI module (tests); the installed package by default. `addonPath` is the legacy one's. */
  aec3LibraryPath?: string;
}

/**
 * A new canceller of the chosen kind. AEC3 takes the formats, the delay hint
 * and each stage on or off; it has no suppression or noise level (any noise
 * level is "on") and no gain target. Throws what the chosen one throws
 * (AUDIO_APM_UNAVAILABLE naming the fix when its library is missing).
 */
export function createApm(canceller: EchoCanceller, options: CancellerOptions = {}): Apm {
  if (canceller === 'legacy') return new WebRtcApm(options);
  return new Aec3Apm({
    sampleRate: options.sampleRate,
    channels: options.channels,
    render: options.render,
    renderMismatch: options.renderMismatch,
    noiseSuppression: options.noiseSuppression !== false,
    gainControl: options.gainControl !== false,
    highPassFilter: options.highPassFilter,
    streamDelayMs: options.streamDelayMs,
    libraryPath: options.aec3LibraryPath,
  });
}

/** What the canceller is, in words, for `doctor` and logs. */
export function describeCanceller(canceller: EchoCanceller): string {
  return canceller === 'aec3'
    ? `AEC3 (WebRTC's current echo canceller, from ${LIVEKIT_FFI_PACKAGE})`
    : "the legacy AEC (Debian's webrtc-audio-processing 0.3, native/webrtc-apm)";
}

/**
 * Starts the canceller and puts one silent frame through it, then closes it:
 * proof that its library loads and works. Returns its description; throws
 * its start-up error (AUDIO_APM_UNAVAILABLE naming the fix, AUDIO_APM_FAILED).
 */
export function checkCanceller(canceller: EchoCanceller, options: CancellerOptions = {}): string {
  const apm = createApm(canceller, options);
  try {
    apm.processRender(new Int16Array(apm.frameSamples));
    apm.processCapture(new Int16Array(apm.frameSamples));
  } finally {
    apm.close();
  }
  return describeCanceller(canceller);
}
