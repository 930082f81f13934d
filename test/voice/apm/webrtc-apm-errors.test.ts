import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { WebRtcApm, loadApmAddon } from '../../../src/voice/apm/index.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
  return undefined;
}

function messageOfThrow(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

describe('WebRtcApm errors', () => {
  it('rejects a speaker format unlike the microphone unless told to resample', () => {
    expect(codeOf(() => new WebRtcApm({ render: { sampleRate: 48_000, channels: 1 } }))).toBe('AUDIO_APM_FORMAT_MISMATCH');
    expect(codeOf(() => new WebRtcApm({ render: { sampleRate: 16_000, channels: 2 } }))).toBe('AUDIO_APM_FORMAT_MISMATCH');
    expect(codeOf(() => new WebRtcApm({ render: { sampleRate: 22_050, channels: 1 }, renderMismatch: 'resample' }))).toBe(
      'AUDIO_APM_FORMAT_MISMATCH',
    );
    expect(codeOf(() => new WebRtcApm({ render: { sampleRate: 44_100, channels: 2 }, renderMismatch: 'resample' }).close())).toBeUndefined();
  });

  it('rejects a capture format the library does not process', () => {
    expect(codeOf(() => new WebRtcApm({ sampleRate: 44_100 }))).toBe('AUDIO_APM_FORMAT_MISMATCH');
    expect(codeOf(() => new WebRtcApm({ channels: 3 }))).toBe('AUDIO_APM_FORMAT_MISMATCH');
  });

  it('rejects frames that are not 10 ms', () => {
    const apm = new WebRtcApm({ sampleRate: 48_000 });
    expect(apm.frameSamples).toBe(480);
    expect(codeOf(() => apm.processCapture(new Int16Array(960)))).toBe('AUDIO_APM_FRAME_INVALID');
    expect(codeOf(() => apm.processRender(new Int16Array(160)))).toBe('AUDIO_APM_FRAME_INVALID');
    expect(codeOf(() => apm.processCapture(new Float32Array(480) as unknown as Int16Array))).toBe('AUDIO_APM_FRAME_INVALID');
    expect(apm.processCapture(new Int16Array(480))).toHaveLength(480);
    apm.close();
  });

  it('fails with AUDIO_APM_UNAVAILABLE, naming the fix, when the addon is missing or is not one', () => {
    const missing = () => new WebRtcApm({ addonPath: '/nonexistent/webrtc_apm.node' });
    expect(codeOf(missing)).toBe('AUDIO_APM_UNAVAILABLE');
    expect(messageOfThrow(missing)).toContain('bash scripts/setup.sh');
    const dir = mkdtempSync(join(tmpdir(), 'apm-'));
    const bogus = join(dir, 'webrtc_apm.node');
    writeFileSync(bogus, 'not a shared object');
    expect(codeOf(() => loadApmAddon(bogus))).toBe('AUDIO_APM_UNAVAILABLE');
  });

  it('turns a non-zero library return into AUDIO_APM_FAILED with the code', () => {
    // A stand-in addon whose capture fails the way the library reports a bad length.
    const dir = mkdtempSync(join(tmpdir(), 'apm-'));
    const fake = join(dir, 'fake-apm.cjs');
    writeFileSync(
      fake,
      `exports.Apm = class { processRender() { return 0; } processCapture() { return -8; } setStreamDelayMs() {}
        stats() { return { metricsCode: -12, delayCode: -12, streamHasEcho: false }; } close() {} };`,
    );
    const apm = new WebRtcApm({ addonPath: fake });
    apm.processRender(new Int16Array(160));
    const message = messageOfThrow(() => apm.processCapture(new Int16Array(160)));
    expect(codeOf(() => apm.processCapture(new Int16Array(160)))).toBe('AUDIO_APM_FAILED');
    expect(message).toContain('code -8');
    expect(apm.stats()).toEqual({ framesRendered: 1, framesCaptured: 0, streamHasEcho: false });
  });

  it('is closed after close(): idempotent, and processing throws AUDIO_APM_FAILED', () => {
    const apm = new WebRtcApm();
    apm.close();
    apm.close();
    expect(codeOf(() => apm.processCapture(new Int16Array(160)))).toBe('AUDIO_APM_FAILED');
  });
});
