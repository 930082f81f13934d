import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors/index.js';
import { Aec3Apm, checkCanceller, createApm, loadLiveKitFfi, WebRtcApm } from '../../../src/voice/apm/index.js';

/** The AppError `fn` throws (anything else fails the test). */
function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

/** A stand-in FFI module: creation and the delay hint succeed, and every frame's answer carries `error`. */
function failingLibrary(error: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'aec3-'));
  const path = join(dir, 'failing-ffi.cjs');
  writeFileSync(
    path,
    `class Message { constructor(fields) { Object.assign(this, fields); } toBinary() { return new TextEncoder().encode(this.message.case); } }
    for (const name of ['FfiRequest', 'NewApmRequest', 'ApmProcessStreamRequest', 'ApmProcessReverseStreamRequest', 'ApmSetStreamDelayRequest']) exports[name] = class extends Message {};
    exports.FfiResponse = class { static fromBinary(bytes) {
      const asked = new TextDecoder().decode(bytes);
      if (asked === 'newApm') return { message: { case: asked, value: { apm: { handle: { id: 1n } } } } };
      return { message: { case: asked, value: asked === 'apmSetStreamDelay' ? {} : { error: ${JSON.stringify(error)} } } };
    } };
    exports.livekitFfiRequest = (bytes) => bytes;
    exports.livekitRetrievePtr = () => 0n;
    exports.FfiHandle = class { dispose() {} };`,
  );
  return path;
}

describe('Aec3Apm errors', () => {
  it('refuses frames that are not 10 ms before they reach the library (which would abort the process)', () => {
    const apm = new Aec3Apm({ sampleRate: 48_000 });
    expect(apm.frameSamples).toBe(480);
    expect(thrown(() => apm.processCapture(new Int16Array(960)))).toMatchObject({ code: 'AUDIO_APM_FRAME_INVALID', message: 'capture frame must be 10 ms (480 samples), got 960 samples' });
    expect(thrown(() => apm.processRender(new Int16Array(160))).code).toBe('AUDIO_APM_FRAME_INVALID');
    expect(thrown(() => apm.processCapture(new Float32Array(480) as unknown as Int16Array)).message).toContain('not an Int16Array');
    // The module still works after the refusals.
    expect(apm.processCapture(new Int16Array(480))).toHaveLength(480);
    apm.close();
  });

  it('rejects a capture format WebRTC does not process, and a speaker format unlike it unless told to resample', () => {
    expect(thrown(() => new Aec3Apm({ sampleRate: 44_100 })).code).toBe('AUDIO_APM_FORMAT_MISMATCH');
    expect(thrown(() => new Aec3Apm({ channels: 3 })).code).toBe('AUDIO_APM_FORMAT_MISMATCH');
    expect(thrown(() => new Aec3Apm({ render: { sampleRate: 48_000, channels: 2 } })).code).toBe('AUDIO_APM_FORMAT_MISMATCH');
    const resampling = new Aec3Apm({ render: { sampleRate: 48_000, channels: 2 }, renderMismatch: 'resample' });
    resampling.processRender(new Int16Array(960));
    expect(resampling.processCapture(new Int16Array(160))).toHaveLength(160);
    resampling.close();
  });

  it('is closed after close(): idempotent, and processing throws AUDIO_APM_FAILED', () => {
    const apm = new Aec3Apm();
    apm.close();
    apm.close();
    expect(thrown(() => apm.processCapture(new Int16Array(160))).code).toBe('AUDIO_APM_FAILED');
    expect(thrown(() => apm.processRender(new Int16Array(160))).code).toBe('AUDIO_APM_FAILED');
    expect(thrown(() => apm.setStreamDelayMs(20)).code).toBe('AUDIO_APM_FAILED');
  });

  it('fails with AUDIO_APM_UNAVAILABLE, naming the fix, when the library is missing or is not it', () => {
    const missing = thrown(() => new Aec3Apm({ libraryPath: '/nonexistent/rtc-ffi-bindings/index.js' }));
    expect(missing.code).toBe('AUDIO_APM_UNAVAILABLE');
    expect(missing.message).toContain('/nonexistent/rtc-ffi-bindings/index.js');
    expect(missing.message).toContain('run `npm ci`');
    expect(missing.message).toContain('canceller = "legacy"');
    const dir = mkdtempSync(join(tmpdir(), 'aec3-'));
    const other = join(dir, 'other.cjs');
    writeFileSync(other, 'exports.livekitFfiRequest = () => new Uint8Array();');
    expect(thrown(() => loadLiveKitFfi(other))).toMatchObject({ code: 'AUDIO_APM_UNAVAILABLE', message: expect.stringContaining('no livekitRetrievePtr, FfiHandle') });
  });

  it('turns an error the library answers into AUDIO_APM_FAILED saying what it could not do', () => {
    const apm = new Aec3Apm({ libraryPath: failingLibrary('bad data length') });
    expect(thrown(() => apm.processCapture(new Int16Array(160)))).toMatchObject({ code: 'AUDIO_APM_FAILED', message: 'AEC3 could not process a capture frame: bad data length' });
    expect(thrown(() => apm.processRender(new Int16Array(160))).message).toBe('AEC3 could not process a render frame: bad data length');
    expect(apm.stats()).toEqual({ framesRendered: 0, framesCaptured: 0 });
    apm.close();
  });
});

describe('choosing the echo canceller', () => {
  it('creates the chosen one from the same options', () => {
    const aec3 = createApm('aec3', { echoSuppression: 'high', noiseSuppression: 'veryHigh', gainControl: false, sampleRate: 32_000 });
    const legacy = createApm('legacy', { echoSuppression: 'high', noiseSuppression: 'veryHigh', gainControl: false, sampleRate: 32_000 });
    expect(aec3).toBeInstanceOf(Aec3Apm);
    expect(legacy).toBeInstanceOf(WebRtcApm);
    expect([aec3.frameSamples, legacy.frameSamples]).toEqual([320, 320]);
    aec3.close();
    legacy.close();
  });

  it('checks that a canceller runs, or says why not', () => {
    expect(checkCanceller('aec3')).toContain('AEC3');
    expect(checkCanceller('legacy')).toContain('legacy AEC');
    expect(thrown(() => checkCanceller('aec3', { aec3LibraryPath: '/nonexistent/ffi.js' })).code).toBe('AUDIO_APM_UNAVAILABLE');
    expect(thrown(() => checkCanceller('legacy', { addonPath: '/nonexistent/webrtc_apm.node' })).code).toBe('AUDIO_APM_UNAVAILABLE');
  });
});
