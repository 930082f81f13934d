import { access, constants } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { shellError } from './errors.js';
import type { PathGuard } from './path-guard.js';

/** Where programs are looked up: never the caller's PATH, never a path the caller gives. */
export const PROGRAM_DIRS: readonly string[] = ['/usr/bin', '/bin'];

export async function findProgram(name: string): Promise<string> {
  for (const dir of PROGRAM_DIRS) {
    const path = `${dir}/${name}`;
    try {
      await access(path, constants.X_OK);
      return path;
    } catch {
      // not in this directory
    }
  }
  throw shellError('SHELL_FAILED', `${name} is allowed but not installed in ${PROGRAM_DIRS.join(' or ')}`);
}

/**
 * The whole environment a command gets: nothing from the server's own, so
 * no GIT_DIR, GIT_CONFIG_PARAMETERS, PAGER or LD_PRELOAD a parent set.
 * Editors point at /bin/false so nothing can wait on one; git reads no
 * system or global config (where filter, diff and fsmonitor programs are
 * usually named), takes no optional locks (git status would otherwise
 * rewrite the index), fetches no missing objects (git 2.44 and later) and
 * stops looking for a repository at the parents of the allowed directories.
 */
export function commandEnvironment(guard: PathGuard, parentEnv: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    PATH: PROGRAM_DIRS.join(':'),
    LC_ALL: 'C.UTF-8',
    HOME: guard.home,
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    EDITOR: '/bin/false',
    VISUAL: '/bin/false',
    GIT_EDITOR: '/bin/false',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_LAZY_FETCH: '1',
    GIT_CEILING_DIRECTORIES: ceilings(guard).join(':'),
    // The user's time zone, so `date` answers in local time; only from the server's own environment.
    ...(parentEnv.TZ ? { TZ: parentEnv.TZ } : {}),
  };
}

/** The parent of each outermost allowed directory, once; '/' has none. */
function ceilings(guard: PathGuard): string[] {
  const parents = guard.roots.filter((root) => root !== sep && !guard.isInside(dirname(root))).map((root) => dirname(root));
  return [...new Set(parents)];
}
