import { readFile } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { shellError, isShellError, refused } from './errors.js';
import type { PathGuard } from './path-guard.js';

/** Runs git with the tool's environment and safety config; resolves with its exit code and stdout. */
export type GitProbe = (args: readonly string[]) => Promise<{ exitCode: number | null; stdout: string }>;

/** Subcommands that compare the work tree, where git runs the configured clean filters. */
const READS_WORK_TREE = new Set(['status', 'diff']);
const FILTER_KEY = /^filter\..+\.(clean|smudge|process)$/;
// A partial clone fetches missing objects on demand. Git 2.39 has no switch
// to stop that (GIT_NO_LAZY_FETCH came in 2.44), and even with every
// transport refused the attempt rewrites .git/config first.
const PROMISOR_KEY = /^(extensions\.partialclone|remote\..+\.promisor)$/;

/**
 * The repository git will use, as git itself finds it (a `.git` file,
 * core.worktree and linked work trees included), must lie inside the
 * allowed directories, and so must the object stores it borrows from
 * (objects/info/alternates). A partial clone is refused (it would reach
 * the network for missing objects), and status and diff are refused when
 * the repository's config names filter programs: git would run them on the
 * work tree's files. No repository found: nothing to check, and git will
 * say so itself.
 */
export async function checkRepository(subcommand: string, guard: PathGuard, probe: GitProbe): Promise<void> {
  const where = await probe(['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir', '--is-inside-work-tree', '--show-toplevel']);
  const [gitDir, commonDir, , topLevel] = where.stdout.split('\n');
  if (!gitDir || !commonDir) return;
  await insideOrThrow(guard, gitDir, 'git directory');
  await insideOrThrow(guard, commonDir, 'common git directory');
  // Without a work tree (a bare repository, or cwd inside .git) git prints no top level.
  if (topLevel) await insideOrThrow(guard, topLevel, 'work tree');
  await checkAlternates(guard, commonDir);
  const config = await probe(['config', '--null', '--list']);
  for (const entry of config.stdout.split('\0')) {
    const newline = entry.indexOf('\n');
    const key = newline === -1 ? entry : entry.slice(0, newline);
    const value = newline === -1 ? 'true' : entry.slice(newline + 1);
    if (PROMISOR_KEY.test(key) && value !== '' && value !== 'false') {
      throw refused(`git ${subcommand} refused: the repository is a partial clone (${key}); git would fetch missing objects over the network`);
    }
    if (READS_WORK_TREE.has(subcommand) && FILTER_KEY.test(key)) {
      throw refused(`git ${subcommand} refused: the repository's config sets ${key}, a program git would run on the work tree's files`);
    }
  }
}

async function checkAlternates(guard: PathGuard, commonDir: string): Promise<void> {
  const objects = `${commonDir}${sep}objects`;
  const text = await readFile(`${objects}${sep}info${sep}alternates`, 'utf8').catch(() => '');
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    await insideOrThrow(guard, isAbsolute(line) ? line : `${objects}${sep}${line}`, 'borrowed object store (objects/info/alternates)');
  }
}

async function insideOrThrow(guard: PathGuard, path: string, what: string): Promise<void> {
  try {
    await guard.check(path, sep, path);
  } catch (error) {
    if (isShellError(error, 'SHELL_PATH_OUTSIDE')) {
      throw shellError('SHELL_PATH_OUTSIDE', `git refused: the repository's ${what} ${path} is outside the allowed directories: ${guard.roots.join(', ')}`);
    }
    throw error;
  }
}
