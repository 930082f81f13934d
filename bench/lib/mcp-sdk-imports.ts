/**
 * Import time of the SDK's entry points: a fresh `node` per sample (nothing
 * cached in the process, the files in the page cache after the first), the
 * time of the `import()`s measured inside it, and the process's whole life.
 */
import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../src/errors/index.js';
import { elapsedMs, now } from '../../test/support/stats.js';

/** dist/bench/lib/ -> the project root, where node_modules resolves the bare names. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What a stdio server and a stdio client of each SDK import; `node_alone` is the floor. */
export const IMPORT_ENTRIES = {
  node_alone: [],
  v1_server_low_level: ['@modelcontextprotocol/sdk/server/index.js', '@modelcontextprotocol/sdk/server/stdio.js'],
  v1_server: ['@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/stdio.js'],
  v2_server: ['@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio'],
  v1_client: ['@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk/client/stdio.js'],
  v2_client: ['@modelcontextprotocol/client', '@modelcontextprotocol/client/stdio'],
} as const satisfies Record<string, readonly string[]>;

export type ImportEntry = keyof typeof IMPORT_ENTRIES;

const SAMPLE_TIMEOUT_MS = 30_000;

/** One fresh process: how long its imports took inside it, and spawn to exit. */
export async function sampleImport(entry: ImportEntry): Promise<{ importMs: number; processMs: number }> {
  const script = `const t = performance.now(); for (const s of ${JSON.stringify(IMPORT_ENTRIES[entry])}) await import(s); process.stdout.write(String(performance.now() - t));`;
  const started = now();
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: PROJECT_ROOT, timeout: SAMPLE_TIMEOUT_MS }, (error, out, stderr) => {
      if (error) reject(new AppError('BENCH_NOT_BUILT', `importing ${entry} failed: ${stderr.trim() || error.message}`, { cause: error }));
      else resolve(out);
    });
  });
  const processMs = elapsedMs(started);
  const importMs = Number(stdout);
  if (!Number.isFinite(importMs)) throw new AppError('BENCH_NOT_BUILT', `importing ${entry} printed ${JSON.stringify(stdout)}, not a time`);
  return { importMs, processMs };
}

/** Bytes on disk of the named packages under node_modules, source maps and type declarations included (what npm installs). */
export async function installedBytes(packages: readonly string[]): Promise<number> {
  let total = 0;
  for (const name of packages) {
    const root = join(PROJECT_ROOT, 'node_modules', name);
    const files = await readdir(root, { recursive: true, withFileTypes: true });
    for (const file of files) if (file.isFile()) total += (await stat(join(file.parentPath, file.name))).size;
  }
  return total;
}
