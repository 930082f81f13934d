import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HashedEmbedder, MemoryStore } from '../../src/memory/index.js';
import { CLI } from '../helpers/paths.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
let home: TempDir;
let dataDir: string;
let ids: number[];

function memory(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(['memory', ...args, '--config-dir', join(home.path, 'config')], { DESKTOP_ASSISTANT_DATA_DIR: dataDir, ...env });
}

beforeEach(async () => {
  home = await makeTempDir('da-cli-memory-');
  dataDir = join(home.path, 'data');
  await home.write('config/config.toml', '');
  let now = Date.parse('2026-11-01T10:00:00Z');
  const store = await MemoryStore.open({ dataDir, embedder: new HashedEmbedder(), clock: () => (now += 60_000), log: { write: () => true } });
  ids = [];
  for (const [text, kind] of [
    ['The recycling goes out on Tuesday', 'fact'],
    ['I like window seats on trains', 'preference'],
    ['The thesis draft is due in January', 'project'],
  ] as const) ids.push((await store.save({ text, kind })).id);
  store.close();
});
afterEach(async () => {
  await home.remove();
});

describe('desktop-assistant memory', () => {
  it('lists newest first, by kind, and as JSON', async () => {
    const listed = await memory(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual([
      `#${ids[2]} [project] 2026-11-01 The thesis draft is due in January`,
      `#${ids[1]} [preference] 2026-11-01 I like window seats on trains`,
      `#${ids[0]} [fact] 2026-11-01 The recycling goes out on Tuesday`,
    ]);
    expect((await memory(['list', '--kind', 'preference'])).stdout).toContain('window seats');
    expect((await memory(['list', '--kind', 'preference'])).stdout).not.toContain('recycling');
    const json = (await memory(['list', '--json', '--limit', '1'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number });
    expect(json.map((r) => r.id)).toEqual([ids[2]]);
  });

  it('searches with scores, forgets by id, and says when an id is unknown', async () => {
    const found = await memory(['search', 'when', 'does', 'the', 'recycling', 'go', 'out']);
    expect(found.code).toBe(0);
    expect(found.stdout.split('\n')[0]).toMatch(new RegExp(`^#${ids[0]} 0\\.\\d{3} \\[fact\\] .*recycling`));

    const forgot = await memory(['forget', String(ids[0])]);
    expect(forgot).toMatchObject({ code: 0, stdout: `forgot memory #${ids[0]}\n` });
    expect((await memory(['list'])).stdout).not.toContain('recycling');
    const missing = await memory(['forget', String(ids[0])]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`there is no memory #${ids[0]}`);
  });

  it('status reports a changed record, and rebuild repairs the index', async () => {
    expect(await memory(['status'])).toMatchObject({ code: 0 });
    const db = new Database(join(dataDir, 'memory.sqlite'));
    db.prepare('UPDATE records SET kind = ? WHERE id = ?').run('note', ids[1]);
    db.close();

    const bad = await memory(['status']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('3 memories, 2 verified against the index (exact search)');
    expect(bad.stderr).toContain('memory health: 1 records in the database do not match their checksums; run `desktop-assistant memory rebuild`');

    const rebuilt = await memory(['rebuild']);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toMatch(/rebuilt the index of 3 memories in \d+ ms \(embedder hashed-ngrams-v1\/256; 0 vectors computed again, 1 records signed again\)/);
    expect(await memory(['status'])).toMatchObject({ code: 0 });
  });

  it('rebuild clears a stale index when the database was moved away (empty): status is healthy after it', async () => {
    expect(existsSync(join(dataDir, 'memory.index'))).toBe(true);
    // What the MEMORY_DB_CORRUPT advice says to do: move the database aside; the index of its records stays.
    await rename(join(dataDir, 'memory.sqlite'), join(home.path, 'memory.sqlite.bad'));
    const stale = await memory(['status']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('run `desktop-assistant memory rebuild`');
    expect((await memory(['rebuild'])).code).toBe(0);
    const status = await memory(['status']);
    expect(status).toMatchObject({ code: 0 });
    expect(status.stdout).toContain('0 memories');
    expect(existsSync(join(dataDir, 'memory.index'))).toBe(false);
  });

  it('rebuild shows its progress on a terminal (a real pty, through `script`), and none into a pipe', async () => {
    const command = [process.execPath, CLI, 'memory', 'rebuild', '--config-dir', join(home.path, 'config')].map((a) => `'${a}'`).join(' ');
    const onTerminal = await run('script', ['-q', '-e', '-c', command, '/dev/null'], { env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: dataDir } });
    const redraws = onTerminal.stdout.split(/[\r\n]+/).filter((l) => l.startsWith('memory: indexing'));
    expect(redraws[0]).toBe('memory: indexing 0 of 3 records\x1b[K');
    expect(redraws.at(-1)).toMatch(/^memory: indexing 3 of 3 records, done in \d+ s\x1b\[K$/);
    expect(onTerminal.stdout).toContain('rebuilt the index of 3 memories');
    const piped = await memory(['rebuild']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain('memory: indexing');
    expect(piped.stdout).not.toContain('memory: indexing');
  });

  it('refuses bad flags with the usage, and with memory off touches no file', async () => {
    const bad = await memory(['list', '--kind', 'secrets']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--kind must be one of preference, fact, project, task_summary, note');

    const empty = join(home.path, 'empty-data');
    for (const env of [{ OWNER_MEMORY_ENABLED: '0', DESKTOP_ASSISTANT_DATA_DIR: empty }]) {
      const off = await memory(['list'], env);
      expect(off.code).toBe(1);
      expect(off.stderr).toContain('memory is turned off');
    }
    expect(existsSync(empty)).toBe(false);
  });
});
