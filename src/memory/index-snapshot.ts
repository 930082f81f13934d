import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { AppError, messageOf } from '../errors/index.js';

export const INDEX_FILE = 'memory.index';
const MAGIC = Buffer.from('DAMEMIX1', 'latin1');
const FORMAT = 2;
const TEMPORARY_PREFIX = `${INDEX_FILE}.tmp-`;

/** What a snapshot says about itself, before its body (the graph's positions, then FAISS's bytes). */
export interface SnapshotHeader {
  format: number;
  /** `exact` (IDMap over FlatIP) or `graph` (HNSW, with the record id of each position). */
  kind: 'exact' | 'graph';
  /** The embedder its vectors came from. */
  embedder: string;
  dim: number;
  /** The last change (memory.sqlite `changes.seq`) it reflects: later ones are replayed from the database. */
  seq: number;
  count: number;
  /** Positions of the graph index, 8 bytes each (float64 record ids, -1 for a forgotten one); 0 for exact. */
  positionCount: number;
  faissBytes: number;
  /** CRC-32 of the whole body. */
  bodyCrc32: number;
}

export interface Snapshot {
  header: SnapshotHeader;
  positions: number[];
  faiss: Buffer;
}

/**
 * Writes the index to `memory.index` whole and atomically: a temporary file,
 * flushed, then renamed over the old one (and the folder flushed), so a
 * crash leaves the old snapshot or the new one, never half of one. Written
 * every `[memory] snapshot_every` changes and on close, not on every save:
 * the database holds each save, and what a snapshot lacks is replayed.
 */
export function writeSnapshot(
  dataDir: string,
  header: Omit<SnapshotHeader, 'format' | 'positionCount' | 'faissBytes' | 'bodyCrc32'>,
  body: { faiss: Buffer; positions?: readonly number[] },
): void {
  const positions = Buffer.alloc(8 * (body.positions?.length ?? 0));
  body.positions?.forEach((id, i) => positions.writeDoubleLE(id, 8 * i));
  const crc = crc32(body.faiss, crc32(positions));
  const full: SnapshotHeader = { format: FORMAT, ...header, positionCount: body.positions?.length ?? 0, faissBytes: body.faiss.length, bodyCrc32: crc };
  const headerBytes = Buffer.from(JSON.stringify(full), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length);
  const temporary = join(dataDir, `${TEMPORARY_PREFIX}${process.pid}-${Date.now()}`);
  const fd = openSync(temporary, 'w', 0o600);
  try {
    for (const part of [MAGIC, length, headerBytes, positions, body.faiss]) writeAll(fd, part);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC') {
      throw new AppError('MEMORY_DISK_FULL', `the memory index ${join(dataDir, INDEX_FILE)} cannot be written: no space left on device; the one before stays, and the database has every memory`, { cause: error, retryable: true });
    }
    throw new AppError('MEMORY_INDEX_UNAVAILABLE', `cannot write the memory index ${temporary}: ${messageOf(error)}`, { cause: error });
  }
  closeSync(fd);
  renameSync(temporary, join(dataDir, INDEX_FILE));
  syncFolder(dataDir);
}

/** Removes the snapshot: an empty store has no index to keep, and an old one would come back at the next start. */
export function removeSnapshot(dataDir: string): void {
  rmSync(join(dataDir, INDEX_FILE), { force: true });
}

/** The snapshot, or undefined when there is none; MEMORY_INDEX_CORRUPT when the file is damaged. */
export function readSnapshot(dataDir: string): Snapshot | undefined {
  const path = join(dataDir, INDEX_FILE);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AppError('MEMORY_INDEX_UNAVAILABLE', `cannot read the memory index ${path}: ${messageOf(error)}`, { cause: error });
  }
  const damaged = (detail: string): AppError => new AppError('MEMORY_INDEX_CORRUPT', `the memory index ${path} is damaged: ${detail}`);
  if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw damaged('not a desktop-assistant memory index');
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  const headerStart = MAGIC.length + 4;
  if (headerStart + headerLength > bytes.length) throw damaged('the header ends early');
  let header: SnapshotHeader;
  try {
    header = JSON.parse(bytes.toString('utf8', headerStart, headerStart + headerLength)) as SnapshotHeader;
  } catch {
    throw damaged('the header is not JSON');
  }
  if (header.format !== FORMAT) throw damaged(`format ${String(header.format)}, expected ${FORMAT}`);
  const body = bytes.subarray(headerStart + headerLength);
  const positionBytes = 8 * header.positionCount;
  if (body.length !== positionBytes + header.faissBytes) throw damaged(`${body.length} bytes of body, the header says ${positionBytes + header.faissBytes}`);
  if (crc32(body) !== header.bodyCrc32) throw damaged('the FAISS data does not match its checksum');
  const positions: number[] = [];
  for (let i = 0; i < header.positionCount; i++) positions.push(body.readDoubleLE(8 * i));
  return { header, positions, faiss: body.subarray(positionBytes) };
}

/** Temporary files a crash left behind in the middle of a snapshot (not those of a live process still writing one). */
export function removeStaleTemporaries(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith(TEMPORARY_PREFIX)) continue;
    const pid = Number(name.slice(TEMPORARY_PREFIX.length).split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue;
    rmSync(join(dataDir, name), { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}

function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
