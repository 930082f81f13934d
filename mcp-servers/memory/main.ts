#!/usr/bin/env node
/**
 * Entry point the hub spawns: `node dist/mcp-servers/memory/main.js
 * [--config-dir DIR]`. Opens the memory store in the data folder (checking
 * the index against the records) and serves the memory tools over stdio.
 */
// Before faiss-node loads: on a desktop's few cores, OpenMP and OpenBLAS
// threads fight each other and the rest of the assistant for no gain on one query.
process.env.OMP_NUM_THREADS ??= '1';
process.env.OPENBLAS_NUM_THREADS ??= '1';

import { dataDir } from '../../src/config/index.js';
import { AppError, isAppError, messageOf } from '../../src/errors/index.js';
import { logEvent } from '../../src/log/index.js';
import { embedderFromConfig, memoryEnabled, MemoryStore, type ProgressListener } from '../../src/memory/index.js';
import { runServerMain } from '../shared/server-main.js';
import { progressNotifications } from './progress-notifications.js';
import { createMemoryServer } from './server.js';

runServerMain(async (config) => {
  // Disabled means no memory file is opened or created, even when started by hand.
  if (!memoryEnabled(config)) throw new AppError('MEMORY_DISABLED', 'memory is turned off ([memory] enabled = false or OWNER_MEMORY_ENABLED=0)');
  let opened: Promise<MemoryStore> | undefined;
  let reportProgress: ProgressListener = () => undefined;
  const openStore = (): Promise<MemoryStore> => (opened = MemoryStore.open({
    dataDir: dataDir(),
    embedder: embedderFromConfig(config),
    snapshotEvery: config.memory.snapshot_every,
    exactSearchMax: config.memory.exact_search_max,
    onProgress: (progress) => reportProgress(progress),
  }).then(
    (store) => {
      const health = store.health();
      logEvent(health.ok ? 'info' : 'error', 'memory_health', { ...health, path: store.path });
      return store;
    },
    (error: unknown) => {
      logEvent('error', 'memory_unavailable', { code: isAppError(error) ? error.code : 'MEMORY_FAILED', error: messageOf(error) });
      throw error;
    },
  ));
  const server = createMemoryServer(openStore);
  reportProgress = progressNotifications(server);
  // A store that never opened (logged above as memory_unavailable) has nothing to close.
  return { server, close: async () => (await opened?.catch(() => undefined))?.close() };
});
