import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AppError, messageOf, type ErrorCode } from '../errors/index.js';

/** The error codes of one database file. */
export interface DatabaseCodes {
  corrupt: ErrorCode;
  tooNew: ErrorCode;
  busy: ErrorCode;
  unavailable: ErrorCode;
  /** SQLITE_FULL: the disk has no room; writes work again once it has (retryable). */
  diskFull: ErrorCode;
  error: ErrorCode;
}

/** What a database is to its user: the words and codes its errors use. */
export interface DatabaseIdentity {
  /** The codes its errors carry, written out (a code is never built from parts). */
  codes: DatabaseCodes;
  /** For messages: "the state database". */
  what: string;
  /** What starting over with an empty file loses, for the advice on a damaged file. */
  startingOverLoses: string;
  /** Said after "no space left on device", when there is more to say: what is kept, what comes back. */
  whenFull?: string;
}

export interface OpenDatabaseOptions {
  path: string;
  identity: DatabaseIdentity;
  /** MIGRATIONS[n] brings a file at `PRAGMA user_version` n to n + 1. */
  migrations: readonly string[];
  /**
   * How long a write waits for another connection's lock (the daemon and an
   * editor's `desktop-assistant mcp` share the data folder) before failing
   * with <prefix>_BUSY.
   */
  busyTimeoutMs?: number;
  /** NORMAL or FULL (see the callers for why each). */
  synchronous: 'NORMAL' | 'FULL';
}

/** A connection whose failures become AppErrors naming the file. */
export class SqliteFile {
  constructor(
    readonly path: string,
    readonly db: Database.Database,
    /** `wal`, unless the file system cannot do it (then SQLite's rollback journal, still safe). */
    readonly journalMode: string,
    private readonly identity: DatabaseIdentity,
  ) {}

  /** Runs `fn` on the connection, turning SQLite failures into AppErrors that name the file. */
  use<T>(fn: (db: Database.Database) => T): T {
    try {
      return fn(this.db);
    } catch (error) {
      throw sqliteError(error, this.path, this.identity);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * Opens (creating when missing) a SQLite file: the folder with mode 0700 and
 * the file with 0600 when this creates them, WAL, a busy timeout, the given
 * synchronous level, and the schema brought to the current version. Throws
 * AppError <prefix>_CORRUPT for a file that is not a readable SQLite
 * database (nothing is changed or deleted), <prefix>_TOO_NEW for one written
 * by a newer version, <prefix>_UNAVAILABLE when the folder or file cannot be
 * created or opened (permissions, disk), <prefix>_DISK_FULL when a write finds
 * no room (retryable), <prefix>_BUSY when another process
 * held a lock for longer than the busy timeout.
 */
export function openDatabase(options: OpenDatabaseOptions): SqliteFile {
  const { path, identity, migrations } = options;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  createPrivately(path, identity);
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw sqliteError(error, path, identity);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
    // The first read of the file: a file that is not a database fails here, before anything is written to it.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    checkNotTooNew(db, path, identity, migrations.length);
    const journalMode = retryWhileBusy(busyTimeoutMs, () => useWal(db));
    db.pragma(`synchronous = ${options.synchronous}`);
    retryWhileBusy(busyTimeoutMs, () => migrate(db, path, identity, migrations));
    return new SqliteFile(path, db, journalMode, identity);
  } catch (error) {
    db.close();
    throw sqliteError(error, path, identity);
  }
}

function createPrivately(path: string, identity: DatabaseIdentity): void {
  const dataDir = dirname(path);
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
    throw new AppError(identity.codes.unavailable, `cannot create ${identity.what} ${path}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/**
 * WAL, switched on only when the file is not in it yet: the switch needs the
 * file to itself, and a second process opening the file a moment after the
 * first (the daemon's server and an editor's) must not trip over it.
 */
function useWal(db: Database.Database): string {
  const current = String(db.pragma('journal_mode', { simple: true }));
  return current === 'wal' ? current : String(db.pragma('journal_mode = WAL', { simple: true }));
}

/**
 * Runs `step` again while SQLite says the file is busy, up to the busy
 * timeout: some steps of opening (the journal mode switch, a migration
 * racing another process's) can be refused at once rather than waited for.
 */
function retryWhileBusy<T>(timeoutMs: number, step: () => T): T {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return step();
    } catch (error) {
      const busy = error instanceof Database.SqliteError && (error.code.startsWith('SQLITE_BUSY') || error.code.startsWith('SQLITE_LOCKED'));
      if (!busy || Date.now() >= deadline) throw error;
      // A synchronous pause: opening is synchronous, and these waits are rare and short.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

function userVersion(db: Database.Database): number {
  return Number(db.pragma('user_version', { simple: true }));
}

function checkNotTooNew(db: Database.Database, path: string, identity: DatabaseIdentity, known: number): void {
  const version = userVersion(db);
  if (version > known) {
    throw new AppError(
      identity.codes.tooNew,
      `${path} has schema version ${version}, written by a newer desktop-assistant; this one knows up to ${known}. ` +
        `Run the newer version, or move the file away to start over (${identity.startingOverLoses}).`,
    );
  }
}

function migrate(db: Database.Database, path: string, identity: DatabaseIdentity, migrations: readonly string[]): void {
  if (userVersion(db) === migrations.length) return;
  // IMMEDIATE: two processes starting together take turns; the second sees the first one's work.
  db.transaction(() => {
    checkNotTooNew(db, path, identity, migrations.length);
    for (let version = userVersion(db); version < migrations.length; version += 1) {
      db.exec(migrations[version] as string);
    }
    db.pragma(`user_version = ${migrations.length}`);
  }).immediate();
}

/** Turns what better-sqlite3 throws into the project's errors; AppErrors pass through. */
export function sqliteError(error: unknown, path: string, identity: DatabaseIdentity): unknown {
  if (error instanceof AppError || !(error instanceof Database.SqliteError)) return error;
  const { codes, what } = identity;
  const code = error.code;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new AppError(
      codes.corrupt,
      `${path} is not a readable SQLite database (${error.message}). Nothing in it was changed. ` +
        `Move it away (with its -wal and -shm files, if any), e.g. \`mv "${path}" "${path}.broken"\`; ` +
        `the next start creates an empty one (${identity.startingOverLoses}).`,
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new AppError(codes.busy, `${path} is locked by another process: ${error.message}`, {
      cause: error,
      retryable: true,
    });
  }
  if (code === 'SQLITE_FULL') {
    // SQLite's word for ENOSPC (a short write too). Reads still work, and nothing committed is touched: the write is rolled back.
    const more = identity.whenFull === undefined ? '' : `; ${identity.whenFull}`;
    return new AppError(codes.diskFull, `${what} at ${path} cannot be written: no space left on device (${code})${more}`, {
      cause: error,
      retryable: true,
    });
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_READONLY') ||
      code.startsWith('SQLITE_IOERR') || code === 'SQLITE_AUTH') {
    return new AppError(codes.unavailable, `cannot use ${what} ${path}: ${error.message} (${code})`, {
      cause: error,
    });
  }
  return new AppError(codes.error, `${what} ${path}: ${error.message} (${code})`, { cause: error });
}
