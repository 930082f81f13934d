import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { asWritten, configSchema, defaultConfig } from '../../src/config/index.js';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';
import { configKeys } from './config-keys.js';
import { keyRows } from './key-tables.js';

const PLACEHOLDERS = { voice: '<lang>', 'duplex.backchannels': '<lang>' };
const page = readFileSync(join(REPO_ROOT, 'docs/configuration.md'), 'utf8');
const rows = keyRows(page);
const documented = rows.map((row) => row.key);
const schemaKeys = configKeys(configSchema, PLACEHOLDERS);

function difference(left: readonly string[], right: readonly string[]): string[] {
  const others = new Set(right);
  return left.filter((key) => !others.has(key));
}

/** The default a file would write for a key without a placeholder segment, or undefined. */
function writtenDefault(key: string): unknown {
  let value: unknown = asWritten(defaultConfig());
  for (const segment of key.split('.')) {
    if (typeof value !== 'object' || value === null || !(segment in value)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

describe('docs/configuration.md and the config schema', () => {
  it('reads the nested keys of the schema, records and catch-alls included', () => {
    expect(schemaKeys).toEqual(expect.arrayContaining([
      'llm', 'vad.silence_ms', 'memory.embeddings.url', 'adapters.browser.max_navigations',
      'mcp.<name>.command', 'voice.enabled', 'voice.<lang>.blend', 'duplex.backchannels.<lang>', 'env', 'router.tools',
    ]));
    expect(schemaKeys).not.toContain('vad');
  });

  it('documents every key of the schema', () => {
    expect(difference(schemaKeys, documented)).toEqual([]);
  });

  it('documents only keys the schema has, each once', () => {
    expect(difference(documented, schemaKeys)).toEqual([]);
    expect(documented.filter((key, index) => documented.indexOf(key) !== index)).toEqual([]);
  });

  it('gives the schema default where a row shows one literal value', () => {
    const wrong = rows.flatMap((row) => {
      const literal = /^`([^`]+)`$/.exec(row.defaultCell)?.[1];
      if (literal === undefined || row.key.includes('<')) return [];
      let shown: unknown;
      try {
        shown = JSON.parse(literal);
      } catch {
        return [];
      }
      const actual = writtenDefault(row.key);
      return JSON.stringify(actual) === JSON.stringify(shown) ? [] : [`${row.key} (line ${row.line}): page ${literal}, schema ${JSON.stringify(actual)}`];
    });
    expect(wrong).toEqual([]);
  });

  it('would catch a key added to the schema without a row', () => {
    const planted = z.strictObject({ vad: z.strictObject({ silence_ms: z.int().default(1), planted_ms: z.int().default(2) }).prefault({}) });
    expect(difference(configKeys(planted), ['vad.silence_ms'])).toEqual(['vad.planted_ms']);
  });
});
