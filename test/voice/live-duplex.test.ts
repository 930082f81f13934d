import { describe, expect, it } from 'vitest';
import { defaultConfig, validateConfig } from '../../src/config/index.js';
import { createAssistantBus } from '../../src/events/index.js';
import type { Conversation } from '../../src/host/conversation/index.js';
import { noConfirmationChannel } from '../../src/host/router/index.js';
import { NullInput } from '../support/null-input.js';
import { NullOutput } from '../support/null-output.js';
import { apmOptionsFromConfig, startLiveDuplex } from '../../src/voice/live-duplex.js';

describe('starting the full-duplex voice', () => {
  it('fails with a provider error naming the fix when the echo-cancellation addon is missing (no fake full duplex)', async () => {
    const start = startLiveDuplex({
      config: defaultConfig(),
      bus: createAssistantBus(),
      conversation: {} as Conversation,
      confirmation: noConfirmationChannel('test'),
      input: new NullInput(),
      output: new NullOutput(),
      apmAddonPath: '/nonexistent/webrtc_apm.node',
    });
    await expect(start).rejects.toMatchObject({ code: 'AUDIO_APM_UNAVAILABLE', message: expect.stringContaining('/nonexistent/webrtc_apm.node') });
  });

  it('fails the same way, naming the fix, when AEC3 is chosen and its library is missing', async () => {
    const config = validateConfig({ duplex: { canceller: 'aec3' } });
    if (!config.ok) throw new Error(config.errors.join('; '));
    const start = startLiveDuplex({
      config: config.config,
      bus: createAssistantBus(),
      conversation: {} as Conversation,
      confirmation: noConfirmationChannel('test'),
      input: new NullInput(),
      output: new NullOutput(),
      aec3LibraryPath: '/nonexistent/rtc-ffi-bindings/index.js',
    });
    await expect(start).rejects.toMatchObject({ code: 'AUDIO_APM_UNAVAILABLE', message: expect.stringMatching(/\/nonexistent\/rtc-ffi-bindings\/index\.js.*run `npm ci`.*canceller = "legacy"/) });
  });

  it('chooses the canceller with [duplex] canceller: legacy unless set, aec3 or legacy, anything else an error naming the key', () => {
    expect(defaultConfig().duplex.canceller).toBe('legacy');
    const aec3 = validateConfig({ duplex: { canceller: 'aec3' } });
    expect(aec3.ok && aec3.config.duplex.canceller).toBe('aec3');
    const other = validateConfig({ duplex: { canceller: 'speex' } });
    expect(!other.ok && other.errors).toContain('config: duplex.canceller must be one of "aec3", "legacy"');
  });

  it('takes the echo canceller settings from [duplex]', () => {
    const result = validateConfig({ duplex: { echo_suppression: 'moderate', noise_suppression: 'very_high', gain_control: true } });
    expect(result.ok && apmOptionsFromConfig(result.config)).toEqual({ echoSuppression: 'moderate', noiseSuppression: 'veryHigh', gainControl: {} });
    expect(apmOptionsFromConfig(defaultConfig())).toEqual({ echoSuppression: 'high', noiseSuppression: 'moderate', gainControl: false });
    const off = validateConfig({ duplex: { noise_suppression: 'off' } });
    expect(off.ok && apmOptionsFromConfig(off.config).noiseSuppression).toBe(false);
  });
});
