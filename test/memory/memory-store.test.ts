import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/index.js';
import { HashedEmbedder, INDEX_FILE, MEMORY_DB_FILE, MemoryStore, type MemoryProgress, type MemoryStoreOptions } from '../../src/memory/index.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const quiet = { write: () => true };
let dir: TempDir;
const open: MemoryStore[] = [];

let exactSearchMax = 20_000;

async function openStore(options: Partial<MemoryStoreOptions> = {}): Promise<MemoryStore> {
  const store = await MemoryStore.open({ dataDir: dir.path, embedder: new HashedEmbedder(), log: quiet, exactSearchMax, ...options });
  open.push(store);
  return store;
}

function closeAll(): void {
  for (const store of open.splice(0)) {
    try {
      store.close();
    } catch {
      // closed already
    }
  }
}

beforeEach(async () => {
  dir = await makeTempDir('da-memory-');
});
afterEach(async () => {
  closeAll();
  await dir.remove();
});

// Every behaviour with exact search, and with the graph index a large store moves to (here past one memory).
describe.each([
  { search: 'exact', max: 20_000 },
  { search: 'graph', max: 1 },
])('MemoryStore ($search search)', ({ max }) => {
  beforeEach(() => {
    exactSearchMax = max;
  });

  it('saves, finds the closest memory first, lists newest first and forgets', async () => {
    let now = 1000;
    const store = await openStore({ clock: () => now++ });
    const birthday = await store.save({ text: "My sister's birthday is March 3", kind: 'fact', sourceTurn: 'turn-1' });
    const coffee = await store.save({ text: 'I prefer dark roast coffee', kind: 'preference' });
    expect(birthday).toMatchObject({ id: expect.any(Number), kind: 'fact', sensitivity: 'none', sourceTurn: 'turn-1', createdMs: 1000 });

    const hits = await store.search({ query: "when is my sister's birthday", k: 5 });
    expect(hits[0]).toMatchObject({ id: birthday.id, text: "My sister's birthday is March 3" });
    expect(hits[0]?.score).toBeGreaterThan((hits[1]?.score ?? -1) + 0.3);
    expect(await store.search({ query: "when is my sister's birthday", k: 5, kind: 'preference' })).toEqual([
      expect.objectContaining({ id: coffee.id }),
    ]);
    expect(await store.search({ query: "when is my sister's birthday", k: 5, minScore: 0.5 })).toHaveLength(1);

    expect(store.list({ limit: 10 }).map((r) => r.id)).toEqual([coffee.id, birthday.id]);
    expect(store.list({ kind: 'fact', limit: 10 }).map((r) => r.id)).toEqual([birthday.id]);

    expect(store.forget(birthday.id)).toBe(true);
    expect(store.forget(birthday.id)).toBe(false);
    expect((await store.search({ query: "sister's birthday", k: 5 })).map((h) => h.id)).toEqual([coffee.id]);
    expect(store.health()).toMatchObject({ ok: true, records: 1, verified: 1, index: max === 1 ? 'graph' : 'exact' });
  });

  it('keeps every memory across a restart, from the snapshot written on close', async () => {
    const first = await openStore();
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push((await first.save({ text: `note number ${i} about topic ${i % 7}`, kind: 'note' })).id);
    first.close();
    expect(existsSync(join(dir.path, INDEX_FILE))).toBe(true);

    const second = await openStore();
    expect(second.health()).toMatchObject({ ok: true, records: 30, verified: 30, problems: [], notes: [], index: max === 1 ? 'graph' : 'exact' });
    const hits = await second.search({ query: 'note number 17 about topic 3', k: 1 });
    expect(hits[0]?.id).toBe(ids[17]);
  });

  it('refuses sensitive content unless the user confirmed it, and marks it when saved', async () => {
    const store = await openStore();
    const error = await store.save({ text: 'my card is 4111 1111 1111 1111', kind: 'fact' }).catch((e: unknown) => e);
    expect(isAppError(error, 'MEMORY_SENSITIVE_UNCONFIRMED')).toBe(true);
    expect((error as Error).message).toContain('payment_card');
    expect(store.health().records).toBe(0);

    const saved = await store.save({ text: 'my card is 4111 1111 1111 1111', kind: 'fact', userConfirmedSensitive: true });
    expect(saved).toMatchObject({ sensitivity: 'sensitive', sensitiveKinds: ['payment_card'] });
  });

  it('names what is wrong with a text it cannot keep', async () => {
    const store = await openStore();
    const codes = [];
    for (const text of ['   ', '!!! ???', 'x'.repeat(2001)]) {
      codes.push(await store.save({ text, kind: 'note' }).then(() => 'saved', (e: unknown) => (isAppError(e) ? e.code : 'other')));
    }
    expect(codes).toEqual(['MEMORY_TEXT_EMPTY', 'MEMORY_TEXT_UNSEARCHABLE', 'MEMORY_TEXT_TOO_LONG']);
  });

  it('rebuilds a damaged snapshot from the database by itself, and says so', async () => {
    const first = await openStore();
    const saved = await first.save({ text: 'the spare key is under the blue pot', kind: 'fact' });
    first.close();
    const file = join(dir.path, INDEX_FILE);
    const bytes = readFileSync(file);
    bytes.writeUInt8((bytes.readUInt8(bytes.length - 20) ^ 0xff) & 0xff, bytes.length - 20);
    writeFileSync(file, bytes);

    const second = await openStore();
    const health = second.health();
    expect(health.ok).toBe(true);
    expect(health.notes.join(' ')).toMatch(/memory index .* is damaged: the FAISS data does not match its checksum; it was rebuilt from the database/);
    expect((await second.search({ query: 'where is the spare key', k: 1 }))[0]?.id).toBe(saved.id);
  });

  it('reports a record changed behind its back, never returns it, and `rebuild` takes it back', async () => {
    const first = await openStore();
    const kept = await first.save({ text: 'the dentist is on Via Roma', kind: 'fact' });
    const tampered = await first.save({ text: 'the gym opens at seven', kind: 'fact' });
    first.close();
    const db = new Database(join(dir.path, MEMORY_DB_FILE));
    db.prepare('UPDATE records SET text = ? WHERE id = ?').run('the gym opens at nine', tampered.id);
    db.close();

    const second = await openStore();
    const health = second.health();
    expect(health).toMatchObject({ ok: false, records: 2, verified: 1 });
    expect(health.problems).toContain('1 records in the database do not match their checksums');
    expect(health.problems.join(' ')).toContain('desktop-assistant memory rebuild');
    expect(second.list({ limit: 10 }).map((r) => r.id)).toEqual([kept.id]);
    expect((await second.search({ query: 'when does the gym open', k: 5 })).map((h) => h.id)).not.toContain(tampered.id);

    const report = await second.rebuild({ log: quiet });
    expect(report).toMatchObject({ records: 2, resigned: 1, reembedded: 0 });
    expect(second.health()).toMatchObject({ ok: true, verified: 2 });
    expect((await second.search({ query: 'when does the gym open', k: 1 }))[0]).toMatchObject({ id: tampered.id, text: 'the gym opens at nine' });
  });

  it('re-embeds a vector damaged in the database when it rebuilds', async () => {
    const first = await openStore();
    const damaged = await first.save({ text: 'the bike lock code is under the seat', kind: 'fact' });
    await first.save({ text: 'the library closes at eight', kind: 'fact' });
    first.close();
    const db = new Database(join(dir.path, MEMORY_DB_FILE));
    const blob = db.prepare('SELECT vector FROM records WHERE id = ?').pluck().get(damaged.id) as Buffer;
    blob.writeFloatLE(blob.readFloatLE(0) + 0.5, 0);
    db.prepare('UPDATE records SET vector = ? WHERE id = ?').run(blob, damaged.id);
    db.close();
    rmSync(join(dir.path, INDEX_FILE));

    const second = await openStore();
    expect(second.health()).toMatchObject({ ok: false, verified: 1 });
    const report = await second.rebuild({ log: quiet });
    expect(report).toMatchObject({ records: 2, reembedded: 1 });
    expect(second.health()).toMatchObject({ ok: true, verified: 2 });
    expect((await second.search({ query: 'where is the bike lock code', k: 1 }))[0]?.id).toBe(damaged.id);
  });

  it('reports an index that belongs to other records (a mismatch), and a rebuild fixes it', async () => {
    const other = await makeTempDir('da-memory-other-');
    try {
      const elsewhere = await MemoryStore.open({ dataDir: other.path, embedder: new HashedEmbedder(), log: quiet });
      for (const text of ['alpha one', 'beta two', 'gamma three']) await elsewhere.save({ text, kind: 'note' });
      elsewhere.close();
      const here = await openStore();
      await here.save({ text: 'delta four', kind: 'note' });
      here.close();
      writeFileSync(join(dir.path, INDEX_FILE), readFileSync(join(other.path, INDEX_FILE)));

      const store = await openStore();
      const health = store.health();
      expect(health.ok).toBe(false);
      expect(health.problems.join('; ')).toMatch(/vectors in the index have no record|different vector in the index/);
      expect(health.verified).toBe(0);
      expect(store.list({ limit: 10 })).toEqual([]);
      await store.rebuild({ log: quiet });
      expect(store.health()).toMatchObject({ ok: true, verified: 1 });
      expect((await store.search({ query: 'delta four', k: 1 }))[0]?.text).toBe('delta four');
    } finally {
      await other.remove();
    }
  });

  it('rebuilds with the new embedder when the embedder changes, never mixing vectors', async () => {
    const first = await openStore({ embedder: new HashedEmbedder({ dim: 128 }) });
    await first.save({ text: 'the plumber is called Marco', kind: 'fact' });
    first.close();
    const second = await openStore({ embedder: new HashedEmbedder({ dim: 256 }) });
    expect(second.health()).toMatchObject({ ok: true, verified: 1 });
    const hits = await second.search({ query: 'what is the plumber called', k: 1 });
    expect(hits[0]?.text).toBe('the plumber is called Marco');
    const db = new Database(join(dir.path, MEMORY_DB_FILE), { readonly: true });
    expect(db.prepare("SELECT value FROM meta WHERE key = 'embedder'").pluck().get()).toBe(new HashedEmbedder({ dim: 256 }).id);
    expect(db.prepare('SELECT length(vector) FROM records').pluck().all()).toEqual([256 * 4]);
    db.close();
  });

  it('reports its long work: the re-embedding after an embedder change and the index build, each from 0 to all', async () => {
    const first = await openStore({ embedder: new HashedEmbedder({ dim: 128 }) });
    for (let i = 0; i < 150; i++) await first.save({ text: `memory ${i} about the garden and word${i}`, kind: 'fact' });
    first.close();
    const reports: MemoryProgress[] = [];
    const second = await openStore({ embedder: new HashedEmbedder({ dim: 256 }), onProgress: (p) => reports.push(p) });
    const embedding = reports.filter((r) => r.task === 'embedding');
    // Batches of 64: 0, 64, 128, 150.
    expect(embedding.map((r) => r.done)).toEqual([0, 64, 128, 150]);
    expect(embedding.every((r) => r.total === 150)).toBe(true);
    // The old snapshot is another embedder's: the index is built again from the records.
    const indexing = reports.filter((r) => r.task === 'indexing');
    expect(indexing.at(0)).toEqual({ task: 'indexing', done: 0, total: 150 });
    expect(indexing.at(-1)).toEqual({ task: 'indexing', done: 150, total: 150 });
    reports.length = 0;
    await second.rebuild({ onProgress: (p) => reports.push(p) });
    // Nothing to compute again: only the index is rebuilt.
    expect(reports.filter((r) => r.task === 'embedding')).toEqual([]);
    expect(reports.at(-1)).toEqual({ task: 'indexing', done: 150, total: 150 });
  });

  it('two stores on one folder see each other’s saves and forgets, with unique ids', async () => {
    const a = await openStore();
    const b = await openStore();
    const fromA = await a.save({ text: 'the boiler was serviced in May', kind: 'fact' });
    const fromB = await b.save({ text: 'the car insurance renews in June', kind: 'fact' });
    expect(fromB.id).not.toBe(fromA.id);
    expect((await b.search({ query: 'when was the boiler serviced', k: 1 }))[0]?.id).toBe(fromA.id);
    expect((await a.search({ query: 'when does the car insurance renew', k: 1 }))[0]?.id).toBe(fromB.id);
    expect(b.forget(fromA.id)).toBe(true);
    expect(a.list({ limit: 10 }).map((r) => r.id)).toEqual([fromB.id]);
  });
});
