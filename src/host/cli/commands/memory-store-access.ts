import { configDir, dataDir, loadConfig } from '../../../config/index.js';
import { AppError } from '../../../errors/index.js';
import { embedderFromConfig, memoryEnabled, MemoryStore } from '../../../memory/index.js';
import type { CliIo } from '../command.js';

/**
 * Opens the memory store of the data folder for one command, and closes it
 * after. With memory off it refuses before touching any file. Safe while
 * the daemon runs: the store's writes take turns through SQLite's lock.
 */
export async function withMemoryStore<T>(
  io: CliIo,
  configDirFlag: string | undefined,
  use: (store: MemoryStore) => Promise<T> | T,
  options: { writes: boolean },
): Promise<T> {
  const config = await loadConfig(configDir(configDirFlag, io.env));
  if (!memoryEnabled(config, io.env)) {
    throw new AppError('MEMORY_DISABLED', 'desktop-assistant: memory is turned off ([memory] enabled = false or OWNER_MEMORY_ENABLED=0)');
  }
  process.env.OMP_NUM_THREADS ??= '1';
  const store = await MemoryStore.open({
    dataDir: dataDir(io.env),
    embedder: embedderFromConfig(config, io.env),
    snapshotEvery: config.memory.snapshot_every,
    exactSearchMax: config.memory.exact_search_max,
    log: io.stderr,
  });
  try {
    return await use(store);
  } finally {
    store.close({ snapshot: options.writes });
  }
}
