import { describe, expect, it } from 'vitest';
import { asWritten, defaultConfig, Duration, validateConfig } from '../../src/config/index.js';

describe('durations in the config', () => {
  it('are read in seconds and held in milliseconds, converted once at load', () => {
    const result = validateConfig({ router: { confirm_timeout: 1.5 }, max_reply_seconds: 0.25 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.router.confirm_timeout).toEqual(new Duration(1.5));
    expect(result.config.router.confirm_timeout.ms).toBe(1500);
    expect(result.config.max_reply_seconds.ms).toBe(250);
    // The defaults go through the same conversion.
    expect(defaultConfig().router.max_tool_seconds.ms).toBe(120_000);
  });

  it('are shown again as the file says them', () => {
    const written = asWritten(defaultConfig()) as { router: { confirm_timeout: unknown }; adapters: { browser: { timeout: unknown } } };
    expect(written.router.confirm_timeout).toBe(30);
    expect(written.adapters.browser.timeout).toBe(20);
  });

  it('keep their checks in seconds', () => {
    const result = validateConfig({ router: { confirm_timeout: 0 } });
    expect(!result.ok && result.errors).toEqual(['config: router.confirm_timeout must be > 0']);
  });
});
