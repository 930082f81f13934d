import { statfsSync } from 'node:fs';
import { messageOf } from '../../errors/index.js';

/**
 * Below this many free bytes the data folder's disk counts as full: SQLite
 * needs a few pages for any write (a WAL frame is 4 KiB and more), and a
 * FAISS snapshot as much as the index; a desktop at 1 MiB free is failing
 * everywhere.
 */
export const DISK_FULL_BELOW_BYTES = 1024 * 1024;

/** The data folder's disk, for `/state`: its free space, and what is missing in words while it is full. */
export interface DiskRoom {
  dataDir: string;
  /** Bytes this process may still write there; absent when the folder cannot be read. */
  freeBytes?: number;
  /** While the disk is full (or cannot be read): what that stops, in words. Absent when all is well. */
  missing?: string;
}

/** One statfs(2) of the data folder: cheap enough for every `/state`. */
export function diskRoom(dataDir: string): DiskRoom {
  let freeBytes: number;
  try {
    const stats = statfsSync(dataDir);
    freeBytes = stats.bavail * stats.bsize;
  } catch (error) {
    return { dataDir, missing: `the data folder ${dataDir} cannot be read (${messageOf(error)}): memories and the tool-call audit cannot be written there` };
  }
  if (freeBytes >= DISK_FULL_BELOW_BYTES) return { dataDir, freeBytes };
  return {
    dataDir,
    freeBytes,
    missing:
      `room on the disk: the disk holding ${dataDir} is full (${Math.floor(freeBytes / 1024)} KiB free), so memories cannot be saved and ` +
      'tool calls cannot be audited, which means they do not run; both work again by themselves once there is room',
  };
}
