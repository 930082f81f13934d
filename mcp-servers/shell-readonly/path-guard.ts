import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, sep } from 'node:path';
import { shellError } from './errors.js';

/** Symlinks followed before a path counts as unresolvable: the kernel's own limit (MAXSYMLINKS). */
const MAX_LINKS = 40;

export interface CheckedPath {
  /** The real path: symlinks followed; for a path that does not exist yet, its real parent plus the rest. */
  real: string;
  exists: boolean;
}

/**
 * The allowed directories, as real paths. Every path the tool hands to a
 * command passes `check`: resolved the way the kernel will (never by
 * lexical normalisation, which gets `link/..` wrong), it must be an allowed
 * directory or lie under one.
 */
export class PathGuard {
  private constructor(readonly roots: readonly string[]) {}

  /** Roots that do not exist are left out; `missing` names them for a warning. */
  static async create(dirs: readonly string[]): Promise<{ guard: PathGuard; missing: string[] }> {
    const roots: string[] = [];
    const missing: string[] = [];
    for (const dir of dirs) {
      try {
        const real = await realpath(dir);
        if ((await stat(real)).isDirectory() && !roots.includes(real)) roots.push(real);
      } catch {
        missing.push(dir);
      }
    }
    return { guard: new PathGuard(roots), missing };
  }

  /** The default working directory: the first allowed directory. */
  get home(): string {
    const first = this.roots[0];
    if (first === undefined) throw shellError('SHELL_PATH_OUTSIDE', 'none of the allowed directories exists; check [adapters.shell_readonly] allowed_dirs');
    return first;
  }

  isInside(real: string): boolean {
    return this.roots.some((root) => real === root || real.startsWith(root === sep ? root : root + sep));
  }

  /**
   * Resolves `value` (relative to `base`, itself a real path) and throws
   * SHELL_PATH_OUTSIDE unless it lands inside; `what` names the argument.
   */
  async check(value: string, base: string, what: string): Promise<CheckedPath> {
    const raw = isAbsolute(value) ? value : `${base}${sep}${value}`;
    const resolved = await resolveLoosely(raw, 0).catch((error: unknown) => {
      throw shellError('SHELL_PATH_OUTSIDE', `${what} cannot be resolved (${(error as Error).message}), so it cannot be shown to lie inside the allowed directories`);
    });
    if (!this.isInside(resolved.real)) {
      const via = resolved.real === raw ? '' : ` (resolves to ${resolved.real})`;
      throw shellError('SHELL_PATH_OUTSIDE', `${what}${via} is outside the allowed directories: ${this.roots.join(', ')}`);
    }
    return resolved;
  }
}

/**
 * realpath(3), extended to paths that do not exist yet: the longest
 * existing prefix is resolved and the rest appended. A dangling symlink is
 * followed by hand, so `inside/link -> /outside/new` resolves outside.
 */
async function resolveLoosely(path: string, links: number): Promise<CheckedPath> {
  if (links > MAX_LINKS) throw new Error('too many levels of symbolic links');
  try {
    return { real: await realpath(path), exists: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES') throw new Error(code ?? 'unresolvable');
  }
  const link = await lstat(path).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    const target = await readlink(path);
    return resolveLoosely(isAbsolute(target) ? target : `${dirname(path)}${sep}${target}`, links + 1);
  }
  const parent = dirname(path);
  const name = basename(path);
  // `missing/..` fails in the kernel too; there is no honest answer for where it points.
  if (name === '..') throw new Error(`'..' after a part that does not exist`);
  if (parent === path) return { real: path, exists: false };
  const resolvedParent = await resolveLoosely(parent, links);
  const real = name === '' || name === '.' ? resolvedParent.real : `${resolvedParent.real === sep ? '' : resolvedParent.real}${sep}${name}`;
  return { real, exists: false };
}
