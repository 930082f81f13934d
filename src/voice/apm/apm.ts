/**
 * The echo-cancellation engine of the full-duplex voice: what the speaker
 * played goes in as render, the microphone as capture, and the capture comes
 * back with the echo of the render (and, where configured, noise) removed.
 * Frames are 10 ms of interleaved int16 PCM: WebRTC's audio processing works
 * in 10 ms chunks, so a 20 ms voice frame is two calls.
 */
export interface Apm {
  /** The sample rate and channel count of capture frames (and of the output). */
  readonly format: ApmFormat;
  /** Samples in one capture frame: `format.sampleRate / 100 * format.channels`. */
  readonly frameSamples: number;
  /**
   * One 10 ms frame exactly as written to the speaker, at the render format.
   * Throws AppError AUDIO_APM_FRAME_INVALID (wrong length) or AUDIO_APM_FAILED.
   */
  processRender(frame: Int16Array): void;
  /**
   * One 10 ms microphone frame; returns the cleaned frame (a new array).
   * Throws AppError AUDIO_APM_FRAME_INVALID (wrong length) or AUDIO_APM_FAILED.
   */
  processCapture(frame: Int16Array): Int16Array;
  /** Hint: ms from a render frame reaching `processRender` to its echo reaching `processCapture`. */
  setStreamDelayMs(ms: number): void;
  stats(): ApmStats;
  /** Frees the native state; idempotent. Processing afterwards throws AUDIO_APM_FAILED. */
  close(): void;
}

export interface ApmFormat {
  sampleRate: number;
  channels: number;
}

/** What the library reports; a figure it has not computed yet is absent. */
export interface ApmStats {
  framesRendered: number;
  framesCaptured: number;
  /** The AEC's echo return loss enhancement (10 log10 P_echo / P_out), dB, long-term average and last. */
  erleDb?: number;
  erleInstantDb?: number;
  /** Echo return loss (10 log10 P_far / P_echo), dB, long-term average. */
  erlDb?: number;
  /** The AEC's own delay estimate (render to capture), median and spread over the last second. */
  delayMedianMs?: number;
  delayStdMs?: number;
  /** The share of delay estimates the AEC considers poor (0..1). */
  fractionPoorDelays?: number;
  /** Whether the AEC judged the last capture frame to contain echo (absent where the library does not say: AEC3 over LiveKit's FFI). */
  streamHasEcho?: boolean;
  /** The noise suppressor's speech probability of the last frame (0..1), when it is on. */
  speechProbability?: number;
}
