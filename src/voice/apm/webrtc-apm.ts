/**
 * `Apm` over WebRTC's audio processing (Debian's libwebrtc-audio-processing
 * 0.3, through the native/webrtc-apm addon): the full AEC (not the mobile
 * AECM) with the extended filter and delay-agnostic mode, so it finds the
 * speaker-to-microphone delay itself; noise suppression, adaptive digital
 * gain control and the high-pass filter as configured.
 */
import { AppError, messageOf } from '../../errors/index.js';
import type { Apm, ApmFormat, ApmStats } from './apm.js';
import { loadApmAddon, type NativeApm, type NativeStats } from './addon.js';
import { checkCaptureFormat, checkFrame, renderConverter, samplesPer10Ms } from './frame-format.js';
import type { RenderConverter } from './render-converter.js';

export type ApmLevel = 'low' | 'moderate' | 'high';
export type NoiseSuppressionLevel = ApmLevel | 'veryHigh';

export interface WebRtcApmOptions {
  /** Capture (microphone) format; also the output's. Default 16 kHz mono. */
  sampleRate?: number;
  channels?: number;
  /** The speaker's format, when it is not the capture's; see `renderMismatch`. */
  render?: ApmFormat;
  /**
   * A render format unlike the capture's: 'resample' converts render frames
   * to the capture format (mix, resample, re-chunk); 'fail' (the default)
   * throws AUDIO_APM_FORMAT_MISMATCH at creation.
   */
  renderMismatch?: 'resample' | 'fail';
  /** The AEC's non-linear suppression; default 'moderate'. */
  echoSuppression?: ApmLevel;
  /** false, or a level; default 'moderate'. */
  noiseSuppression?: false | NoiseSuppressionLevel;
  /** false, or adaptive digital gain to a target; default on, -3 dBFS, 9 dB compression. */
  gainControl?: false | { targetLevelDbfs?: number; compressionGainDb?: number };
  /** Default true: removes DC and rumble below ~80 Hz. */
  highPassFilter?: boolean;
  /** Initial delay hint, ms (default 0: the delay-agnostic AEC estimates it). */
  streamDelayMs?: number;
  /** The addon's path; the project's build by default. */
  addonPath?: string;
}

/** The library's error codes (AudioProcessing::Error), for messages. */
const LIBRARY_ERRORS: Record<number, string> = {
  [-1]: 'unspecified error',
  [-2]: 'creation failed',
  [-3]: 'unsupported component',
  [-4]: 'unsupported function',
  [-5]: 'null pointer',
  [-6]: 'bad parameter',
  [-7]: 'bad sample rate',
  [-8]: 'bad data length',
  [-9]: 'bad number of channels',
  [-10]: 'file error',
  [-11]: 'stream parameter not set',
  [-12]: 'not enabled',
};

/** The library's "not computed yet" level (kOffsetLevel). */
const NO_LEVEL = -100;

export class WebRtcApm implements Apm {
  readonly format: ApmFormat;
  readonly frameSamples: number;
  private readonly renderFrameSamples: number;
  private readonly converter: RenderConverter | undefined;
  private native: NativeApm | undefined;
  private framesRendered = 0;
  private framesCaptured = 0;

  /** Loads the addon (lazily, once per path) and configures the library. */
  constructor(options: WebRtcApmOptions = {}) {
    this.format = { sampleRate: options.sampleRate ?? 16_000, channels: options.channels ?? 1 };
    checkCaptureFormat(this.format);
    const render = options.render ?? this.format;
    this.converter = renderConverter(render, this.format, options.renderMismatch ?? 'fail');
    this.frameSamples = samplesPer10Ms(this.format);
    this.renderFrameSamples = samplesPer10Ms(render);

    const addon = loadApmAddon(options.addonPath);
    const gain = options.gainControl === false ? undefined : (options.gainControl ?? {});
    try {
      this.native = new addon.Apm({
        ...this.format,
        suppressionLevel: ['low', 'moderate', 'high'].indexOf(options.echoSuppression ?? 'moderate'),
        noiseSuppression: options.noiseSuppression !== false,
        nsLevel: ['low', 'moderate', 'high', 'veryHigh'].indexOf(options.noiseSuppression || 'moderate'),
        gainControl: gain !== undefined,
        agcTargetDbfs: gain?.targetLevelDbfs ?? 3,
        agcCompressionGainDb: gain?.compressionGainDb ?? 9,
        highPassFilter: options.highPassFilter ?? true,
      });
    } catch (error) {
      throw new AppError('AUDIO_APM_FAILED', `WebRTC audio processing did not start: ${messageOf(error)}`, { cause: error });
    }
    this.setStreamDelayMs(options.streamDelayMs ?? 0);
  }

  processRender(frame: Int16Array): void {
    const native = this.open();
    checkFrame('render', frame, this.renderFrameSamples);
    const frames = this.converter ? this.converter.push(frame) : [frame];
    for (const f of frames) check('render', native.processRender(f));
    this.framesRendered++;
  }

  processCapture(frame: Int16Array): Int16Array {
    const native = this.open();
    checkFrame('capture', frame, this.frameSamples);
    const out = new Int16Array(this.frameSamples);
    check('capture', native.processCapture(frame, out));
    this.framesCaptured++;
    return out;
  }

  setStreamDelayMs(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new AppError('AUDIO_APM_FAILED', `stream delay ${ms} ms is not a non-negative number`);
    this.open().setStreamDelayMs(Math.round(ms));
  }

  stats(): ApmStats {
    return { framesRendered: this.framesRendered, framesCaptured: this.framesCaptured, ...fromNative(this.open().stats()) };
  }

  close(): void {
    this.native?.close();
    this.native = undefined;
  }

  private open(): NativeApm {
    if (!this.native) throw new AppError('AUDIO_APM_FAILED', 'the audio processing stage is closed');
    return this.native;
  }
}

function check(stream: string, code: number): void {
  if (code === 0) return;
  const what = LIBRARY_ERRORS[code] ?? 'unknown error';
  throw new AppError('AUDIO_APM_FAILED', `WebRTC audio processing failed on a ${stream} frame: ${what} (code ${code})`, {
    cause: { libraryCode: code },
  });
}

function fromNative(s: NativeStats): Omit<ApmStats, 'framesRendered' | 'framesCaptured'> {
  const level = (v: number | undefined): number | undefined => (v === undefined || v <= NO_LEVEL ? undefined : v);
  const stats: Omit<ApmStats, 'framesRendered' | 'framesCaptured'> = { streamHasEcho: s.streamHasEcho };
  const optional = {
    erleDb: level(s.erle?.average),
    erleInstantDb: level(s.erle?.instant),
    erlDb: level(s.erl?.average),
    delayMedianMs: s.delayMedianMs !== undefined && s.delayMedianMs >= 0 ? s.delayMedianMs : undefined,
    delayStdMs: s.delayStdMs !== undefined && s.delayStdMs >= 0 ? s.delayStdMs : undefined,
    fractionPoorDelays: s.fractionPoorDelays !== undefined && s.fractionPoorDelays >= 0 ? s.fractionPoorDelays : undefined,
    speechProbability: s.speechProbability,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(stats, { [key]: value });
  return stats;
}
