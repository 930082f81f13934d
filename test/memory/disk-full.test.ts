import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/index.js';
import { HashedEmbedder, INDEX_FILE, MEMORY_DB_FILE, MemoryStore, type MemoryRecord, type MemoryStoreOptions } from '../../src/memory/index.js';
import { mountSmallDisk, openDescriptorsOf } from '../helpers/small-disk.js';

/**
 * The memory store on a real, small tmpfs filled to ENOSPC: the database
 * (SQLite, synchronous=FULL) and the FAISS index snapshot on a disk with no
 * room, then with room again.
 */

const attempt = mountSmallDisk(8 * 1024 * 1024, 'da-memory-disk-');
if (!attempt.ok) console.warn(`memory disk-full tests skipped: ${attempt.reason}`);
const disk = attempt.ok ? attempt.disk : undefined;
afterAll(() => disk?.unmount());

let dataDir: string;
let logged: string[];
const open: MemoryStore[] = [];

async function openStore(options: Partial<MemoryStoreOptions> = {}): Promise<MemoryStore> {
  const store = await MemoryStore.open({ dataDir, embedder: new HashedEmbedder(), log: { write: (line: string) => logged.push(line) }, ...options });
  open.push(store);
  return store;
}

const FACTS = ["My sister's birthday is March 3", 'I prefer dark roast coffee', 'The project deadline is Friday', 'My bike is a green Peugeot', 'The dentist is on Elm Street'];

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

beforeEach((context) => {
  dataDir = join(disk!.path, `data-${context.task.id}`);
  logged = [];
});
afterEach(() => {
  for (const store of open.splice(0)) {
    try {
      store.close({ snapshot: false });
    } catch {
      // closed already
    }
  }
  disk?.free();
});

describe.skipIf(!disk)('the memory store on a full disk', () => {
  it('refuses a save with MEMORY_DISK_FULL naming the file, still finds every memory, and saves again as soon as there is room', async () => {
    // A snapshot every 2 changes: some saves below also try to write the FAISS index.
    const store = await openStore({ snapshotEvery: 2 });
    const saved: MemoryRecord[] = [];
    for (const text of FACTS) saved.push(await store.save({ text, kind: 'fact' }));
    const descriptors = openDescriptorsOf();

    expect(disk!.fill()).toBeGreaterThan(0);
    for (const text of ['I park on level 3', 'My locker code is on the fridge', 'Tea after six']) {
      const error = await failure(store.save({ text, kind: 'note' }));
      expect(isAppError(error, 'MEMORY_DISK_FULL')).toBe(true);
      expect((error as Error).message).toContain(`the memory database at ${join(dataDir, MEMORY_DB_FILE)} cannot be written: no space left on device`);
      expect((error as Error).message).toContain('the memories saved before are kept');
      expect(isAppError(error) && error.retryable).toBe(true);
    }
    // A forget is a write too: refused the same way, and the memory stays.
    expect(isAppError(await failure(Promise.resolve().then(() => store.forget(saved[0]!.id))), 'MEMORY_DISK_FULL')).toBe(true);

    // Reads work while the disk is full, and find every memory acknowledged before.
    for (const record of saved) expect((await store.search({ query: record.text, k: 1 }))[0]).toMatchObject({ id: record.id, text: record.text });
    expect(store.list({ limit: 20 }).map((r) => r.id).sort()).toEqual(saved.map((r) => r.id).sort());
    expect(store.health()).toMatchObject({ ok: true, records: FACTS.length, verified: FACTS.length });
    // Nothing left open or half-written by the failures.
    expect(openDescriptorsOf()).toEqual(descriptors);
    expect(readdirSync(dataDir).filter((name) => name.includes('.tmp-'))).toEqual([]);

    disk!.free();
    const freedAt = Date.now();
    const back = await store.save({ text: 'I park on level 3', kind: 'note' });
    const backMs = Date.now() - freedAt;
    expect(backMs).toBeLessThan(3000);
    console.info(`memory: the first save after the disk was freed took ${backMs} ms`);
    expect((await store.search({ query: 'where do I park', k: 1 }))[0]).toMatchObject({ id: back.id });
    store.close();

    // A restart finds everything, from the snapshot (no rebuild), and the database checks clean.
    const again = await openStore();
    expect(again.health()).toMatchObject({ ok: true, records: FACTS.length + 1, verified: FACTS.length + 1, notes: [] });
    for (const record of [...saved, back]) expect((await again.search({ query: record.text, k: 1 }))[0]).toMatchObject({ id: record.id, text: record.text });
    again.close();
    const db = new Database(join(dataDir, MEMORY_DB_FILE), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  it('closed while the disk is full, keeps every memory: the next start loads the old snapshot and replays the rest', async () => {
    const first = await openStore();
    for (const text of FACTS.slice(0, 3)) await first.save({ text, kind: 'fact' });
    first.close();
    const second = await openStore();
    const later = [];
    for (const text of FACTS.slice(3)) later.push(await second.save({ text, kind: 'fact' }));

    disk!.fill();
    // The snapshot at close cannot be written: logged, the old one left whole, the database closed all the same.
    second.close();
    expect(logged.join('')).toContain(`the memory index ${join(dataDir, INDEX_FILE)} cannot be written: no space left on device; the one before stays`);
    expect(readdirSync(dataDir).filter((name) => name.includes('.tmp-'))).toEqual([]);

    // Opened again with the disk still full: the reads work.
    const whileFull = await openStore();
    expect(whileFull.health()).toMatchObject({ ok: true, records: FACTS.length, verified: FACTS.length });
    whileFull.close({ snapshot: false });

    disk!.free();
    const third = await openStore();
    expect(third.health()).toMatchObject({ ok: true, records: FACTS.length, verified: FACTS.length, notes: [] });
    for (const text of FACTS) expect((await third.search({ query: text, k: 1 }))[0]?.text).toBe(text);
    expect(readdirSync(dataDir)).toContain(INDEX_FILE);
    expect(later).toHaveLength(2);
  });
});
