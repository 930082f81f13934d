import { join } from 'node:path';
import { openDatabase, SqliteFile, type DatabaseIdentity } from '../../sqlite/index.js';
import { MIGRATIONS } from './schema.js';

export const STATE_DB_FILE = 'state.sqlite';

export interface OpenStateDbOptions {
  /**
   * How long a write waits for another connection's lock (the daemon and an
   * editor's `desktop-assistant mcp` write to the same file) before failing
   * with STATE_DB_BUSY.
   */
  busyTimeoutMs?: number;
}

const STATE_DB: DatabaseIdentity = {
  codes: { corrupt: 'STATE_DB_CORRUPT', tooNew: 'STATE_DB_TOO_NEW', busy: 'STATE_DB_BUSY', unavailable: 'STATE_DB_UNAVAILABLE', diskFull: 'STATE_DB_DISK_FULL', error: 'STATE_DB_ERROR' },
  what: 'the state database',
  startingOverLoses: 'the tool-call audit and the tool approvals start over',
};

/**
 * The host's state database, `state.sqlite` in the data folder: the tool-call
 * audit and the tool pins. One per process; close it on shutdown.
 */
export type StateDb = SqliteFile;

/**
 * Opens (creating when missing) `state.sqlite` in `dataDir` (see
 * openDatabase for the errors: STATE_DB_CORRUPT, STATE_DB_TOO_NEW,
 * STATE_DB_UNAVAILABLE, STATE_DB_BUSY).
 */
export function openStateDb(dataDir: string, options: OpenStateDbOptions = {}): StateDb {
  return openDatabase({
    path: join(dataDir, STATE_DB_FILE),
    identity: STATE_DB,
    migrations: MIGRATIONS,
    busyTimeoutMs: options.busyTimeoutMs,
    // NORMAL, as SQLite advises with WAL: a committed row survives any crash
    // of this or another process, and the file is never corrupted; a power
    // cut may lose the last rows. FULL would add a disk flush (about 0.3 ms
    // here) to every tool call's audit record.
    synchronous: 'NORMAL',
  });
}

