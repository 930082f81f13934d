/**
 * The memory's long work reaches the bus (and so the page): a store made
 * with another embedder is re-embedded when the memory server opens it, and
 * its index built again; the server reports both as progress notifications
 * and the hub turns them into `progress` events.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { startHost, type Host } from '../../../src/host/runtime.js';
import { HashedEmbedder, MemoryStore } from '../../../src/memory/index.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

const RECORDS = 3000;
let home: TempDir;
let host: Host | undefined;

beforeEach(async () => {
  home = await makeTempDir('da-memory-progress-');
  // The default embedder is 256-dimensional: these vectors are another embedder's.
  const store = await MemoryStore.open({ dataDir: join(home.path, 'data'), embedder: new HashedEmbedder({ dim: 128 }), log: { write: () => true } });
  for (let i = 0; i < RECORDS; i++) await store.save({ text: `note ${i} on topic ${i % 101} with word${i % 17}`, kind: 'fact' });
  store.close();
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await home.remove();
});

type Progress = Extract<AssistantEvent, { type: 'progress' }>;

describe('progress events from the memory server', () => {
  it('the re-embedding and the index build, each from its first report to done, with a rate', async () => {
    await home.write('config/config.toml', '[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n');
    // Subscribed before the start: the store opens once the tools are listed, during it.
    const bus = createAssistantBus();
    const events: Progress[] = [];
    bus.subscribe((e) => {
      if (e.type === 'progress') events.push(e);
    });
    host = await startHost({ configDir: join(home.path, 'config'), env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') }, bus });
    const done = (task: string) => events.some((e) => e.task === task && e.done === e.total);
    // Only starts the store's tasks; the progress events below are what is tested.
    await host.hub.callTool('memory_list', { limit: 1 }).catch(() => undefined);
    await waitFor(() => (done('embedding') && done('indexing') ? true : undefined), 'both tasks done', 30_000);
    for (const task of ['embedding', 'indexing']) {
      const steps = events.filter((e) => e.task === task);
      expect(steps.every((e) => e.server === 'memory' && e.total === RECORDS)).toBe(true);
      expect(steps.map((e) => e.done)).toEqual([...steps.map((e) => e.done)].sort((a, b) => a - b));
      expect(steps.at(-1)).toMatchObject({ done: RECORDS, remainingS: 0 });
      expect(steps.at(-1)!.ratePerS).toBeGreaterThan(0);
    }
  }, 60_000);
});
