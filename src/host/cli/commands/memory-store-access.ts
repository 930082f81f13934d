import { configDir, dataDir, loadConfig } from '../../../config/index.js';
import { AppError } from '../../../errors/index.js';
import { embedderFromConfig, memoryEnabled, MemoryStore, type ProgressListener } from '../../../memory/index.js';
import { progressLine } from '../../terminal/index.js';
import type { CliIo } from '../command.js';

/**
 * Opens the memory store of the data folder for one command, and closes it
 * after. With memory off it refuses before touching any file. Safe while
 * the daemon runs: the store's writes take turns through SQLite's lock.
 */
export async function withMemoryStore<T>(
  io: CliIo,
  configDirFlag: string | undefined,
  use: (store: MemoryStore, progress: ProgressListener) => Promise<T> | T,
  options: { writes: boolean },
): Promise<T> {
  const config = await loadConfig(configDir(configDirFlag, io.env));
  if (!memoryEnabled(config, io.env)) {
    throw new AppError('MEMORY_DISABLED', 'desktop-assistant: memory is turned off ([memory] enabled = false or OWNER_MEMORY_ENABLED=0)');
  }
  process.env.OMP_NUM_THREADS ??= '1';
  // Opening may re-embed every record (a new embedder) or build the index (no usable snapshot): minutes at 100k.
  const line = progressLine(io.stderr, 'memory');
  let store: MemoryStore;
  try {
    store = await MemoryStore.open({
      dataDir: dataDir(io.env),
      embedder: embedderFromConfig(config, io.env),
      snapshotEvery: config.memory.snapshot_every,
      exactSearchMax: config.memory.exact_search_max,
      log: io.stderr,
      onProgress: line.listener,
    });
  } finally {
    line.end();
  }
  try {
    const work = progressLine(io.stderr, 'memory');
    try {
      return await use(store, work.listener);
    } finally {
      work.end();
    }
  } finally {
    store.close({ snapshot: options.writes });
  }
}
