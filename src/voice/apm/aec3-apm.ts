/**
 * `Apm` over WebRTC's current echo canceller, AEC3, through LiveKit's
 * native FFI library (see livekit-ffi.ts): its audio processing module with
 * AEC3, noise suppression, gain control (AGC2) and the high-pass filter
 * switched on or off. The FFI has no levels: any noise-suppression level
 * is "on", and the legacy AEC's suppression level has no AEC3 counterpart.
 *
 * Frames are processed in place: each one is copied into a buffer whose
 * address the library is given. A frame of the wrong length must never
 * reach the library: it panics, and the panic aborts the whole process.
 */
import { AppError, messageOf } from '../../errors/index.js';
import type { Apm, ApmFormat, ApmStats } from './apm.js';
import { checkCaptureFormat, checkFrame, renderConverter, samplesPer10Ms } from './frame-format.js';
import { loadLiveKitFfi, type FfiRequestMessage, type FfiResponseMessage, type LiveKitFfi } from './livekit-ffi.js';
import type { RenderConverter } from './render-converter.js';

export interface Aec3ApmOptions {
  /** Capture (microphone) format; also the output's. Default 16 kHz mono. */
  sampleRate?: number;
  channels?: number;
  /** The speaker's format, when it is not the capture's: 'resample' converts it, 'fail' (default) throws AUDIO_APM_FORMAT_MISMATCH. */
  render?: ApmFormat;
  renderMismatch?: 'resample' | 'fail';
  /** Default on. */
  noiseSuppression?: boolean;
  /** Default on. */
  gainControl?: boolean;
  /** Default true: removes DC and rumble below ~80 Hz. */
  highPassFilter?: boolean;
  /**
   * Initial delay hint, ms (default 0). AEC3 finds the delay itself, but
   * without any hint it missed an echo with no delay at all (4 dB removed
   * instead of 51 on an exact loopback); a hint of 0 did not hurt at
   * 10-200 ms of real delay.
   */
  streamDelayMs?: number;
  /** The FFI module's path (tests); the installed package by default. */
  libraryPath?: string;
}

export class Aec3Apm implements Apm {
  readonly format: ApmFormat;
  readonly frameSamples: number;
  private readonly renderFrameSamples: number;
  private readonly converter: RenderConverter | undefined;
  private readonly ffi: LiveKitFfi;
  /** The library's handle of this module; undefined once closed. */
  private handle: bigint | undefined;
  /** The buffer frames are processed in, and its address (an ArrayBuffer's memory does not move). */
  private readonly work: Int16Array;
  private readonly workAddress: bigint;
  private framesRendered = 0;
  private framesCaptured = 0;

  /** Loads the library (lazily, once) and creates the module. */
  constructor(options: Aec3ApmOptions = {}) {
    this.format = { sampleRate: options.sampleRate ?? 16_000, channels: options.channels ?? 1 };
    checkCaptureFormat(this.format);
    const render = options.render ?? this.format;
    this.converter = renderConverter(render, this.format, options.renderMismatch ?? 'fail');
    this.frameSamples = samplesPer10Ms(this.format);
    this.renderFrameSamples = samplesPer10Ms(render);
    this.ffi = loadLiveKitFfi(options.libraryPath);
    this.work = new Int16Array(new ArrayBuffer(this.frameSamples * Int16Array.BYTES_PER_ELEMENT));
    this.workAddress = this.ffi.livekitRetrievePtr(new Uint8Array(this.work.buffer));

    const created = this.request('start', {
      case: 'newApm',
      value: new this.ffi.NewApmRequest({
        echoCancellerEnabled: true,
        noiseSuppressionEnabled: options.noiseSuppression ?? true,
        gainControllerEnabled: options.gainControl ?? true,
        highPassFilterEnabled: options.highPassFilter ?? true,
      }),
    });
    const id = created.value?.apm?.handle?.id;
    if (typeof id !== 'bigint') throw new AppError('AUDIO_APM_FAILED', `AEC3 did not start: the library answered ${created.case ?? 'nothing'} without a handle`);
    this.handle = id;
    this.setStreamDelayMs(options.streamDelayMs ?? 0);
  }

  processRender(frame: Int16Array): void {
    const handle = this.open();
    checkFrame('render', frame, this.renderFrameSamples);
    const frames = this.converter ? this.converter.push(frame) : [frame];
    for (const f of frames) this.process('render', handle, f);
    this.framesRendered++;
  }

  processCapture(frame: Int16Array): Int16Array {
    const handle = this.open();
    checkFrame('capture', frame, this.frameSamples);
    this.process('capture', handle, frame);
    this.framesCaptured++;
    return this.work.slice();
  }

  setStreamDelayMs(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new AppError('AUDIO_APM_FAILED', `stream delay ${ms} ms is not a non-negative number`);
    const apmHandle = this.open();
    this.request('set its delay hint', { case: 'apmSetStreamDelay', value: new this.ffi.ApmSetStreamDelayRequest({ apmHandle, delayMs: Math.round(ms) }) });
  }

  /** The frame counts only: the FFI reports no echo figures (ERLE, delay) and no echo flag. */
  stats(): ApmStats {
    this.open();
    return { framesRendered: this.framesRendered, framesCaptured: this.framesCaptured };
  }

  close(): void {
    const handle = this.handle;
    this.handle = undefined;
    // The library throws on a second drop of a handle: only the first close drops it.
    if (handle !== undefined) new this.ffi.FfiHandle(handle).dispose();
  }

  private open(): bigint {
    if (this.handle === undefined) throw new AppError('AUDIO_APM_FAILED', 'the AEC3 audio processing stage is closed');
    return this.handle;
  }

  /** One checked 10 ms capture-format frame through the library, in place in `work`. */
  private process(stream: 'render' | 'capture', apmHandle: bigint, frame: Int16Array): void {
    this.work.set(frame);
    const fields = { apmHandle, dataPtr: this.workAddress, size: this.work.byteLength, sampleRate: this.format.sampleRate, numChannels: this.format.channels };
    this.request(`process a ${stream} frame`, stream === 'render'
      ? { case: 'apmProcessReverseStream', value: new this.ffi.ApmProcessReverseStreamRequest(fields) }
      : { case: 'apmProcessStream', value: new this.ffi.ApmProcessStreamRequest(fields) });
  }

  /** Sends one request; a thrown error or an `error` in the answer becomes AUDIO_APM_FAILED saying what it could not do. */
  private request(what: string, message: FfiRequestMessage): FfiResponseMessage {
    let answer: FfiResponseMessage;
    try {
      const bytes = this.ffi.livekitFfiRequest(new this.ffi.FfiRequest({ message }).toBinary());
      answer = this.ffi.FfiResponse.fromBinary(bytes).message;
    } catch (error) {
      throw new AppError('AUDIO_APM_FAILED', `AEC3 could not ${what}: ${messageOf(error)}`, { cause: error });
    }
    const error = answer.value?.error;
    if (error) throw new AppError('AUDIO_APM_FAILED', `AEC3 could not ${what}: ${error}`);
    return answer;
  }
}
