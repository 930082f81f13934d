import { describe, expect, it } from 'vitest';
import { assistantMode, defaultConfig, validateConfig } from '../../src/config/index.js';

describe('assistant mode', () => {
  it('is turn-based unless full duplex is asked for', () => {
    expect(assistantMode(defaultConfig(), {})).toBe('turn_based');
    const result = validateConfig({ mode: 'full_duplex_agent' });
    expect(result.ok && assistantMode(result.config, {})).toBe('full_duplex_agent');
  });

  it('takes OWNER_ASSISTANT_MODE over the file, and names a wrong value', () => {
    expect(assistantMode(defaultConfig(), { OWNER_ASSISTANT_MODE: 'full_duplex_agent' })).toBe('full_duplex_agent');
    const result = validateConfig({ mode: 'full_duplex_agent' });
    expect(result.ok && assistantMode(result.config, { OWNER_ASSISTANT_MODE: 'turn_based' })).toBe('turn_based');
    expect(() => assistantMode(defaultConfig(), { OWNER_ASSISTANT_MODE: 'duplex' })).toThrow(/OWNER_ASSISTANT_MODE must be one of turn_based, full_duplex_agent, got "duplex"/);
  });

  it('rejects an unknown mode and a bad [duplex] value by name', () => {
    const bad = validateConfig({ mode: 'always_on', duplex: { barge_in_threshold: 2 } });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.join('\n')).toMatch(/mode/);
    expect(bad.errors.join('\n')).toMatch(/duplex\.barge_in_threshold/);
  });
});
