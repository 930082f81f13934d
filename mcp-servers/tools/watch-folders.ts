import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Calls `onChange` once after a burst of changes in any of the folders
 * (editors save by writing a temporary file and renaming it, which is
 * several events). A folder that does not exist yet is waited for in the
 * folder above it: once it appears (`cp -r examples/tools ~/.config/...`
 * while the daemon runs) it is watched too, and counts as a change.
 */
export function watchFolders(folders: readonly string[], onChange: () => void, debounceMs = 100): () => void {
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  const watchers: FSWatcher[] = [];
  const follow = (folder: string): boolean => {
    try {
      const watcher = watch(folder, { persistent: false }, schedule);
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
      return true;
    } catch {
      return false;
    }
  };
  for (const folder of new Set(folders)) {
    if (follow(folder)) continue;
    const name = basename(folder);
    let parent: FSWatcher | undefined;
    try {
      parent = watch(dirname(folder), { persistent: false }, (_, file) => {
        if ((file === null || file.toString() === name) && existsSync(folder) && follow(folder)) {
          parent?.close();
          schedule();
        }
      });
      parent.on('error', () => parent?.close());
      watchers.push(parent);
    } catch {
      // Neither the folder nor the one above it: nothing to watch.
    }
  }
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
