import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { AppError, messageOf } from '../../errors/index.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export const STATE_DB_FILE = 'state.sqlite';

export interface OpenStateDbOptions {
  /**
   * How long a write waits for another connection's lock (the daemon and an
   * editor's `desktop-assistant mcp` write to the same file) before failing
   * with STATE_DB_BUSY.
   */
  busyTimeoutMs?: number;
}

/**
 * The host's state database, `state.sqlite` in the data folder: the tool-call
 * audit and the tool pins. One per process; close it on shutdown.
 */
export class StateDb {
  constructor(
    readonly path: string,
    readonly db: Database.Database,
    /** `wal`, unless the file system cannot do it (then SQLite's rollback journal, still safe). */
    readonly journalMode: string,
  ) {}

  /** Runs `fn` on the connection, turning SQLite failures into AppErrors that name the file. */
  use<T>(fn: (db: Database.Database) => T): T {
    try {
      return fn(this.db);
    } catch (error) {
      throw stateDbError(error, this.path);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * Opens (creating when missing) `state.sqlite` in `dataDir`: the folder with
 * mode 0700 and the file with 0600 when this creates them, WAL, a busy
 * timeout, synchronous=NORMAL (see below), and the
 * schema brought to the current version. Throws AppError STATE_DB_CORRUPT
 * for a file that is not a readable SQLite database (nothing is changed or
 * deleted), STATE_DB_TOO_NEW for one written by a newer version,
 * STATE_DB_UNAVAILABLE when the folder or file cannot be created or opened
 * (permissions, disk), STATE_DB_BUSY when another process held a lock for
 * longer than the busy timeout.
 */
export function openStateDb(dataDir: string, options: OpenStateDbOptions = {}): StateDb {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const path = join(dataDir, STATE_DB_FILE);
  createPrivately(dataDir, path);
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw stateDbError(error, path);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
    // The first read of the file: a file that is not a database fails here, before anything is written to it.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    checkNotTooNew(db, path);
    const journalMode = String(db.pragma('journal_mode = WAL', { simple: true }));
    // NORMAL, as SQLite advises with WAL: a committed row survives any crash
    // of this or another process, and the file is never corrupted; a power
    // cut may lose the last rows. FULL would add a disk flush (about 0.3 ms
    // here) to every tool call's audit record.
    db.pragma('synchronous = NORMAL');
    migrate(db, path);
    return new StateDb(path, db, journalMode);
  } catch (error) {
    db.close();
    throw stateDbError(error, path);
  }
}

function createPrivately(dataDir: string, path: string): void {
  try {
    mkdirSync(dirname(dataDir), { recursive: true });
    try {
      mkdirSync(dataDir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // `wx`: create only, so an existing file (whatever its state) is never opened for writing here.
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new AppError('STATE_DB_UNAVAILABLE', `cannot create the state database ${path}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

function userVersion(db: Database.Database): number {
  return Number(db.pragma('user_version', { simple: true }));
}

function checkNotTooNew(db: Database.Database, path: string): void {
  const version = userVersion(db);
  if (version > SCHEMA_VERSION) {
    throw new AppError(
      'STATE_DB_TOO_NEW',
      `${path} has schema version ${version}, written by a newer desktop-assistant; this one knows up to ${SCHEMA_VERSION}. ` +
        'Run the newer version, or move the file away to start with an empty audit and no tool approvals.',
    );
  }
}

function migrate(db: Database.Database, path: string): void {
  if (userVersion(db) === SCHEMA_VERSION) return;
  // IMMEDIATE: two processes starting together take turns; the second sees the first one's work.
  db.transaction(() => {
    checkNotTooNew(db, path);
    for (let version = userVersion(db); version < SCHEMA_VERSION; version += 1) {
      db.exec(MIGRATIONS[version] as string);
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/** Turns what better-sqlite3 throws into the project's errors; AppErrors pass through. */
export function stateDbError(error: unknown, path: string): unknown {
  if (error instanceof AppError || !(error instanceof Database.SqliteError)) return error;
  const code = error.code;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new AppError(
      'STATE_DB_CORRUPT',
      `${path} is not a readable SQLite database (${error.message}). Nothing in it was changed. ` +
        `Move it away (with its -wal and -shm files, if any), e.g. \`mv "${path}" "${path}.broken"\`; ` +
        'the next start creates an empty one (the tool-call audit and the tool approvals start over).',
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new AppError('STATE_DB_BUSY', `${path} is locked by another process: ${error.message}`, {
      cause: error,
      retryable: true,
    });
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_READONLY') ||
      code.startsWith('SQLITE_IOERR') || code === 'SQLITE_FULL' || code === 'SQLITE_AUTH') {
    return new AppError('STATE_DB_UNAVAILABLE', `cannot use the state database ${path}: ${error.message} (${code})`, {
      cause: error,
    });
  }
  return new AppError('STATE_DB_ERROR', `state database ${path}: ${error.message} (${code})`, { cause: error });
}
