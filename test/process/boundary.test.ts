import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(folder, file));
}

/** The files outside src/process whose text matches `pattern`. */
function outsideProcessModule(pattern: RegExp): string[] {
  return [...sources('src'), ...sources('mcp-servers')]
    .filter((file) => relative(join('src', 'process'), file).startsWith('..'))
    .filter((file) => pattern.test(readFileSync(join(ROOT, file), 'utf8')))
    .sort();
}

describe('the check below', () => {
  it('finds what it looks for outside src/process', () => {
    expect(outsideProcessModule(/export async function runToolFile\(/)).toEqual([join('src', 'tool-files', 'run.ts')]);
  });
});

describe('the process module is the one place that', () => {
  it('puts a child in a group of its own, or signals a group', () => {
    expect(outsideProcessModule(/detached:|process\.kill\(\s*-/)).toEqual([]);
  });

  it('holds an environment allow-list', () => {
    // The other lists that were: the hub's, whisper-server's, espeak-ng's and amixer's.
    expect(outsideProcessModule(/ENV_ALLOW|ALLOWED_PREFIXES|allowed-env/)).toEqual([]);
  });
});
