import type { AdaptersConfig } from '../../src/config/index.js';

/** `[adapters.browser]` with times in milliseconds. */
export interface BrowserSettings {
  chromiumPath: string;
  /** The whole call: launch (on a cold start), navigation, waiting and reading. */
  callTimeoutMs: number;
  /** Main-frame navigations per call, the first one and every redirect included. */
  maxNavigations: number;
  maxOutputChars: number;
}

export function browserSettings(config: AdaptersConfig['browser']): BrowserSettings {
  return {
    chromiumPath: config.chromium,
    callTimeoutMs: config.timeout.ms,
    maxNavigations: config.max_navigations,
    maxOutputChars: config.max_output_chars,
  };
}
