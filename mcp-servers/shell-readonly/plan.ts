import { stat } from 'node:fs/promises';
import { argName, refused } from './errors.js';
import type { PathGuard } from './path-guard.js';

/** One call's arguments after the input checks: argv, and cwd as a checked real path. */
export interface PolicyContext {
  argv: readonly string[];
  cwd: string;
  guard: PathGuard;
}

/** What to run: a program name from the fixed directories, its arguments, and where. */
export interface CommandPlan {
  program: string;
  args: string[];
  cwd: string;
  /** Exit codes that are answers rather than failures (grep: 1 = nothing matched), with the text for no output. */
  quietExits: Readonly<Record<number, string>>;
  /** Set for git: the repository found from cwd is checked first, with git run with `globalArgs`. */
  git?: { subcommand: string; globalArgs: string[] };
}

/**
 * Checks one path-like argument: inside the allowed directories, and for
 * a file the command reads, a regular file or a directory. A FIFO would
 * block and a device such as /dev/zero would never end.
 */
export async function checkPathValue(ctx: PolicyContext, value: string, index: number, reads: boolean, command: string, base = ctx.cwd): Promise<void> {
  const what = argName(index, value);
  const checked = await ctx.guard.check(value, base, what);
  if (!reads || !checked.exists) return;
  // A path this process cannot stat, the command cannot read either: it reports that itself.
  const info = await stat(checked.real).catch(() => undefined);
  if (info && !info.isFile() && !info.isDirectory()) {
    throw refused(`${what} is ${describeType(info)}; ${command} may read only regular files and directories`);
  }
}

function describeType(info: Awaited<ReturnType<typeof stat>>): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}
