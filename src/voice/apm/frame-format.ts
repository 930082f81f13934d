/**
 * The format rules both echo cancellers share: WebRTC's audio processing
 * takes 10 ms int16 frames at 8/16/32/48 kHz, mono or stereo, and compares
 * render and capture in one format (or converts the render explicitly).
 */
import { AppError } from '../../errors/index.js';
import type { ApmFormat } from './apm.js';
import { RenderConverter } from './render-converter.js';

/** The rates the libraries' int16 path accepts. */
export const APM_SAMPLE_RATES = [8000, 16000, 32000, 48000] as const;

/** Interleaved samples in 10 ms of `format`. */
export function samplesPer10Ms(format: ApmFormat): number {
  return (format.sampleRate / 100) * format.channels;
}

/** Throws AUDIO_APM_FORMAT_MISMATCH for a capture format WebRTC does not process. */
export function checkCaptureFormat(format: ApmFormat): void {
  if (!(APM_SAMPLE_RATES as readonly number[]).includes(format.sampleRate) || (format.channels !== 1 && format.channels !== 2)) {
    throw new AppError(
      'AUDIO_APM_FORMAT_MISMATCH',
      `capture format ${format.sampleRate} Hz x ${format.channels} is not one WebRTC processes (${APM_SAMPLE_RATES.join('/')} Hz, mono or stereo): resample the microphone first`,
    );
  }
}

/** A converter for a render format unlike the capture's ('resample'), or AUDIO_APM_FORMAT_MISMATCH ('fail'); undefined when they match. */
export function renderConverter(render: ApmFormat, capture: ApmFormat, mismatch: 'resample' | 'fail'): RenderConverter | undefined {
  if (render.sampleRate === capture.sampleRate && render.channels === capture.channels) return undefined;
  const describe = `render ${render.sampleRate} Hz x ${render.channels}, capture ${capture.sampleRate} Hz x ${capture.channels}`;
  if (mismatch === 'fail') {
    throw new AppError('AUDIO_APM_FORMAT_MISMATCH', `speaker and microphone formats differ (${describe}); set renderMismatch: 'resample' to convert`);
  }
  if (!Number.isInteger(render.sampleRate / 100) || !Number.isInteger(render.channels) || render.channels < 1) {
    throw new AppError('AUDIO_APM_FORMAT_MISMATCH', `render format cannot be cut into 10 ms frames (${describe})`);
  }
  return new RenderConverter(render, capture);
}

/** Throws AUDIO_APM_FRAME_INVALID unless `frame` is an Int16Array of exactly `samples`. */
export function checkFrame(stream: string, frame: Int16Array, samples: number): void {
  if (!(frame instanceof Int16Array) || frame.length !== samples) {
    const got = frame instanceof Int16Array ? `${frame.length} samples` : 'not an Int16Array';
    throw new AppError('AUDIO_APM_FRAME_INVALID', `${stream} frame must be 10 ms (${samples} samples), got ${got}`);
  }
}
