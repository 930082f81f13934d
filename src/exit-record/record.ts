import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../errors/index.js';

/** In the data folder, next to the state database and the memory. */
export const EXIT_RECORD_FILE = 'last-exit.json';

/** How a run of the daemon ended. */
export interface ExitInfo {
  /** When it ended; absent when that is not known (it ended without a record). */
  atMs?: number;
  /** In words: `stopped by SIGTERM`, `uncaught error: ...`, `exited with code 3`. */
  reason: string;
  /** A stop that was asked for (a signal the daemon stops on, a clean close). */
  clean: boolean;
}

/**
 * The daemon's runs as the file keeps them: the current (or last) run, how
 * it ended once it has, and how the run before it ended.
 */
export interface ExitRecord {
  pid: number;
  startedAtMs: number;
  exit?: ExitInfo;
  previous?: ExitInfo;
}

export function exitRecordPath(dataDir: string): string {
  return join(dataDir, EXIT_RECORD_FILE);
}

/** The record, or undefined when there is none or it cannot be read (a partial file cannot exist: see writeExitRecord). */
export function readExitRecord(dataDir: string): ExitRecord | undefined {
  let text: string;
  try {
    text = readFileSync(exitRecordPath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ExitRecord>;
    if (typeof parsed.pid !== 'number' || typeof parsed.startedAtMs !== 'number') return undefined;
    return { pid: parsed.pid, startedAtMs: parsed.startedAtMs, ...(isExit(parsed.exit) ? { exit: parsed.exit } : {}), ...(isExit(parsed.previous) ? { previous: parsed.previous } : {}) };
  } catch {
    return undefined;
  }
}

function isExit(value: unknown): value is ExitInfo {
  if (typeof value !== 'object' || value === null) return false;
  const { atMs, reason, clean } = value as Record<string, unknown>;
  return typeof reason === 'string' && typeof clean === 'boolean' && (atMs === undefined || typeof atMs === 'number');
}

/**
 * Writes the record whole or not at all: a temporary file, flushed, renamed
 * over the old one. Synchronous, because it runs in the process's last
 * moments ('exit' and uncaught-error handlers cannot wait). Answers the
 * error's message when it could not write (a full disk, a removed folder);
 * a daemon that is dying must not die of its record.
 */
export function writeExitRecord(dataDir: string, record: ExitRecord): string | undefined {
  const file = exitRecordPath(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
    return undefined;
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Nothing was made there.
    }
    return messageOf(error);
  }
}
