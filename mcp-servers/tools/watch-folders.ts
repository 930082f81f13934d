import { watch, type FSWatcher } from 'node:fs';

/**
 * Calls `onChange` once after a burst of changes in any of the folders
 * (editors save by writing a temporary file and renaming it, which is
 * several events). A folder that does not exist is not watched.
 */
export function watchFolders(folders: readonly string[], onChange: () => void, debounceMs = 100): () => void {
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  const watchers: FSWatcher[] = [];
  for (const folder of new Set(folders)) {
    try {
      const watcher = watch(folder, { persistent: false }, schedule);
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // Missing folder: nothing to watch.
    }
  }
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
