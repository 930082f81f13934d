import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempDir {
  path: string;
  /** Writes a file under the folder (parents made); `mode` e.g. 0o755 for scripts. */
  write(relative: string, text: string, mode?: number): Promise<string>;
  remove(): Promise<void>;
}

export async function makeTempDir(prefix = 'da-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return {
    path,
    async write(relative, text, mode) {
      const file = join(path, relative);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
      if (mode !== undefined) await chmod(file, mode);
      return file;
    },
    remove: () => rm(path, { recursive: true, force: true }),
  };
}
