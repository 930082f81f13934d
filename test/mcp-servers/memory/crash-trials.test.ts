import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HashedEmbedder, MemoryStore } from '../../../src/memory/index.js';
import type { StdioServerHandle } from '../../helpers/mcp-stdio.js';
import { isRunning } from '../../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';
import { connectMemoryServer, memoryFolders, save, search, structured, type MemoryView } from './memory-fixture.js';

const TRIALS = 20;
const BURST = 40;
/** Saves in flight at once. */
const WINDOW = 5;
const quiet = { write: () => true };
let home: TempDir;

beforeEach(async () => {
  home = await makeTempDir('da-memory-crash-');
});
afterEach(async () => {
  await home.remove();
});

describe('memory server killed with SIGKILL in the middle of a burst of saves', () => {
  it(`loses nothing that was acknowledged and leaves no half-saved record, ${TRIALS} times`, async () => {
    // A snapshot every 3 changes: kills land in the middle of index snapshots too.
    const folders = await memoryFolders(home, '[memory]\nsnapshot_every = 3\n');
    const acknowledged = new Map<number, string>();
    let attempted = 0;

    for (let trial = 0; trial < TRIALS; trial++) {
      // Odd trials with the graph index a large store uses (past 10 memories here), even ones with exact search.
      await home.write('config/config.toml', `[memory]\nsnapshot_every = 3\nexact_search_max = ${trial % 2 === 0 ? 100_000 : 10}\n`);
      const server: StdioServerHandle = await connectMemoryServer(folders);
      // Killed right when this many saves of the burst are acknowledged. At most WINDOW saves are in
      // flight (one more is sent as one is answered), so the kill always lands with saves queued or
      // in flight, however fast the server answers, and the rest of the burst meets a dead server.
      const killAfter = 1 + ((trial * 7) % (BURST - 10));
      let acknowledgedNow = 0;
      let sent = 0;
      let settled = 0;
      let burstDone: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (burstDone = resolve));
      const sendNext = (): void => {
        if (sent === BURST) return;
        const text = `trial ${trial} item ${sent}: remember the parcel code ${trial * 100 + sent}`;
        sent += 1;
        attempted += 1;
        void save(server, text, 'note')
          .then(
            (result) => {
              if (result.isError) return;
              acknowledged.set(structured<{ memory: MemoryView }>(result).memory.id, text);
              acknowledgedNow += 1;
              if (acknowledgedNow === killAfter) process.kill(server.pid, 'SIGKILL');
            },
            () => undefined, // the connection died with the server: not acknowledged
          )
          .finally(() => {
            settled += 1;
            if (settled === BURST) burstDone();
            sendNext();
          });
      };
      for (let i = 0; i < WINDOW; i++) sendNext();
      await done;
      await waitFor(() => (isRunning(server.pid) ? undefined : true), `memory server ${server.pid} to die`);
      // Killed above on purpose: only the client side is left to close.
      await server.close().catch(() => undefined);
    }
    expect(acknowledged.size).toBeGreaterThan(TRIALS * 3);
    expect(acknowledged.size).toBeLessThan(attempted);

    // Every record is whole (its checksums match) and every vector has its record.
    const store = await MemoryStore.open({ dataDir: folders.dataDir, embedder: new HashedEmbedder(), log: quiet });
    try {
      const health = store.health();
      expect(health).toMatchObject({ ok: true, problems: [] });
      expect(health.verified).toBe(health.records);
      const listed = store.list({ limit: 100_000 });
      const byId = new Map(listed.map((r) => [r.id, r.text]));
      for (const [id, text] of acknowledged) expect(byId.get(id), `memory ${id}`).toBe(text);
    } finally {
      store.close();
    }
    const db = new Database(join(folders.dataDir, 'memory.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }

    // And the server, restarted, finds an acknowledged one.
    const restarted = await connectMemoryServer(folders);
    try {
      const [someId, someText] = [...acknowledged.entries()][acknowledged.size - 1] as [number, string];
      expect((await search(restarted, someText, 1))[0]?.id).toBe(someId);
    } finally {
      await restarted.close();
    }
  }, 120_000);
});
