import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Calls `onChange` once after a burst of changes in any of the folders
 * (editors save by writing a temporary file and renaming it, which is
 * several events). A folder that does not exist yet is waited for in the
 * nearest folder above it that does, one level at a time: once it appears
 * (`cp -r examples/tools ~/.config/desktop-assistant/` while the daemon
 * runs, or the whole config folder made later) it is watched too, and its
 * appearance counts as a change.
 */
export function watchFolders(folders: readonly string[], onChange: () => void, debounceMs = 100): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  const watchers = new Set<FSWatcher>();
  const watchOne = (folder: string, listener: (file: string | null) => void): FSWatcher | undefined => {
    try {
      const watcher = watch(folder, { persistent: false }, (_, file) => listener(file === null ? null : file.toString()));
      watcher.on('error', () => close(watcher));
      watchers.add(watcher);
      return watcher;
    } catch {
      return undefined;
    }
  };
  const close = (watcher: FSWatcher): void => {
    watcher.close();
    watchers.delete(watcher);
  };
  const follow = (folder: string): boolean => watchOne(folder, schedule) !== undefined;
  /** Watches the nearest existing folder above `folder` until the next level down appears. */
  const awaitFolder = (folder: string): void => {
    if (stopped) return;
    if (existsSync(folder)) {
      // There, but not watchable (no permission): nothing more to wait for.
      if (follow(folder)) schedule();
      return;
    }
    const above = nearestExisting(dirname(folder));
    if (above === undefined) return;
    const next = childOnTheWay(above, folder);
    const watcher = watchOne(above, (file) => {
      if (file !== null && file !== basename(next)) return;
      if (!existsSync(next)) return;
      close(watcher!);
      awaitFolder(folder);
    });
    // It may have appeared between the look and the watch.
    if (watcher && existsSync(next)) {
      close(watcher);
      awaitFolder(folder);
    }
  };
  for (const folder of new Set(folders)) {
    if (!follow(folder)) awaitFolder(folder);
  }
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const watcher of [...watchers]) close(watcher);
  };
}

function nearestExisting(folder: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    if (existsSync(at)) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** The folder one level below `above` on the way to `target`. */
function childOnTheWay(above: string, target: string): string {
  let at = target;
  while (dirname(at) !== above && dirname(at) !== at) at = dirname(at);
  return at;
}
