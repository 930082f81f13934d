import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { DUPLEX_DEFAULTS, resolveDuplexConfig } from '../../../src/voice/duplex/index.js';

describe('duplex config', () => {
  it('defaults: a stricter barge-in threshold, a minimum that fits the 200 ms stop target', () => {
    const config = resolveDuplexConfig();
    expect(config).toEqual(DUPLEX_DEFAULTS);
    expect(config.bargeInThreshold).toBeGreaterThan(config.speechThreshold);
    expect(config.minBargeInSpeechMs).toBeLessThan(200);
    expect(resolveDuplexConfig({ minBargeInSpeechMs: 150, falseInterruptionTimeoutMs: undefined }).falseInterruptionTimeoutMs).toBe(2000);
  });

  it.each([
    [{ speechThreshold: 0 }, 'speechThreshold'],
    [{ bargeInThreshold: 1.2 }, 'bargeInThreshold'],
    [{ speechThreshold: 0.6, bargeInThreshold: 0.5 }, 'bargeInThreshold'],
    [{ minBargeInSpeechMs: -1 }, 'minBargeInSpeechMs'],
    [{ falseInterruptionTimeoutMs: Number.NaN }, 'falseInterruptionTimeoutMs'],
    [{ recoveryTimeoutMs: 0 }, 'recoveryTimeoutMs'],
  ])('rejects %j naming %s', (partial, key) => {
    let caught: unknown;
    try {
      resolveDuplexConfig(partial);
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught, 'DUPLEX_CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toContain(key);
  });
});
