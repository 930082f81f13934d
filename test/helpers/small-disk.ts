import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readlinkSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small tmpfs of its own: a real disk that fills up, with no harm to the machine's. */
export interface SmallDisk {
  path: string;
  /** Writes a filler file until the disk answers ENOSPC; answers the bytes written. */
  fill(): number;
  /** Deletes the filler: the disk has room again. */
  free(): void;
  unmount(): void;
}

export type SmallDiskAttempt = { ok: true; disk: SmallDisk } | { ok: false; reason: string };

const FILLER = '.filler';
const CHUNK = Buffer.alloc(64 * 1024, 0x5a);

/**
 * Mounts a tmpfs of `sizeBytes` on a new folder (root, or CAP_SYS_ADMIN, is
 * needed); answers why not when the system refuses, for the test to say
 * when it skips.
 */
export function mountSmallDisk(sizeBytes: number, prefix = 'da-small-disk-'): SmallDiskAttempt {
  const path = mkdtempSync(join(tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', path], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    rmdirSync(path);
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { ok: false, reason: `cannot mount a tmpfs here: ${stderr || (error as Error).message}` };
  }
  const filler = join(path, FILLER);
  return {
    ok: true,
    disk: {
      path,
      fill() {
        const fd = openSync(filler, 'a');
        let written = 0;
        try {
          for (;;) written += writeSync(fd, CHUNK);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        } finally {
          closeSync(fd);
        }
        return written;
      },
      free: () => rmSync(filler, { force: true }),
      unmount() {
        execFileSync('umount', [path]);
        rmdirSync(path);
      },
    },
  };
}

/**
 * What process `pid` holds open now, by kind: `pipe`, `socket`,
 * `anon_inode`, and the files by path (a listing of this process counts its
 * own descriptor for /proc/self/fd). Sockets come and go with HTTP
 * keep-alive; files and pipes are what a failed write could leave behind.
 */
export function openDescriptorsOf(pid: number = process.pid): { files: string[]; pipes: number; sockets: number } {
  const files: string[] = [];
  let pipes = 0;
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed while we looked
    }
    if (target.startsWith('pipe:')) pipes += 1;
    else if (target.startsWith('socket:')) sockets += 1;
    else if (!target.startsWith('anon_inode:') && target !== `/proc/${pid}/fd`) files.push(target);
  }
  return { files: files.sort(), pipes, sockets };
}
