import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateDb, SqliteAuditLog, type StateDb } from '../../../src/host/store/index.js';
import { DIST } from '../../helpers/paths.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { auditRecord } from './fixtures.js';

const STORE = join(DIST, 'src/host/store/index.js');
const ROWS = 100;

// The other process (say, an editor's `desktop-assistant mcp` next to the daemon) runs the compiled store.
const CHILD = `
import { openStateDb, SqliteAuditLog } from ${JSON.stringify(pathToFileURL(STORE).href)};
const [dir, rows] = process.argv.slice(2);
if (!dir || !(Number(rows) > 0)) throw new Error('usage: child.mjs DIR ROWS');
const state = openStateDb(dir);
const log = new SqliteAuditLog(state);
process.stdout.write('ready\\n');
process.stdin.once('data', async () => {
  for (let i = 0; i < Number(rows); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    log.record({ atMs: Date.now(), turnId: 'child-' + i, entry: 'mcp', tool: 'child', server: 'tools', risk: 'read',
      decision: 'allow', decidedBy: 'policy', status: 'ok', durationMs: 1, argsHash: 'c', argsSummary: '{}',
      outputChars: 0, truncated: false });
  }
  state.close();
  process.exit(0);
});
`;

let dir: TempDir;
let state: StateDb | undefined;
beforeEach(async () => {
  dir = await makeTempDir('da-store-');
});
afterEach(async () => {
  state?.close();
  await dir.remove();
});

describe('two processes', () => {
  it('both write to the same file at the same time, and every row of both is there', async () => {
    if (!existsSync(STORE)) throw new Error(`${STORE} is missing: run \`npm run build\` first`);
    state = openStateDb(dir.path);
    const log = new SqliteAuditLog(state);
    const script = await dir.write('child.mjs', CHILD);
    const child = spawn(process.execPath, [script, dir.path, String(ROWS)], { cwd: dir.path, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', () => reject(new Error(`child exited before it was ready: ${stderr}`)));
    });
    // Flushed to the pipe before the loop below holds the event loop.
    await new Promise<void>((resolve, reject) => child.stdin.write('go\n', (error) => (error ? reject(error) : resolve())));
    // Keep writing until the child's rows are all in, so the two overlap (bounded, should the child die).
    // Both pace their writes: SQLite's lock is not fair, and a writer in a tight loop starves the other.
    const countChild = state.db.prepare("SELECT count(*) FROM audit WHERE tool = 'child'").pluck();
    const deadline = Date.now() + 15_000;
    let written = 0;
    while (Date.now() < deadline && (written < ROWS || (countChild.get() as number) < ROWS)) {
      log.record(auditRecord({ tool: 'parent', turnId: `parent-${written}`, atMs: Date.now() }));
      written += 1;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const code = await exited;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const count = state.db.prepare('SELECT tool, count(*) AS n FROM audit GROUP BY tool ORDER BY tool').all();
    expect(count).toEqual([
      { tool: 'child', n: ROWS },
      { tool: 'parent', n: written },
    ]);
    // The parent wrote while the child was writing: some of its rows lie between the child's first and last.
    const childIds = state.db.prepare("SELECT min(id) AS first, max(id) AS last FROM audit WHERE tool = 'child'").get() as {
      first: number;
      last: number;
    };
    const between = state.db
      .prepare("SELECT count(*) FROM audit WHERE tool = 'parent' AND id BETWEEN ? AND ?")
      .pluck()
      .get(childIds.first, childIds.last) as number;
    expect(between).toBeGreaterThan(0);
  });
});
