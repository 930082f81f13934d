import { argName, invalid, refused } from './errors.js';
import { checkPathValue, type CommandPlan, type PolicyContext } from './plan.js';

const FLAGS = new Set([
  '-print', '-print0', '-ls', '-prune', '-quit', '-true', '-false', '-empty', '-readable', '-writable', '-executable',
  '-nouser', '-nogroup', '-depth', '-d', '-xdev', '-mount', '-noleaf', '-ignore_readdir_race', '-noignore_readdir_race',
  '-daystart', '-warn', '-nowarn', '-not', '-a', '-and', '-o', '-or', '!', '(', ')', ',',
]);

/** Primaries that take one argument which is not a path. */
const WITH_VALUE = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname', '-type',
  '-xtype', '-size', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-used', '-user', '-group', '-uid', '-gid',
  '-perm', '-links', '-inum', '-maxdepth', '-mindepth', '-regextype', '-printf', '-fstype',
]);

/** Primaries whose argument is a file find stats. */
const WITH_PATH = new Set(['-newer', '-anewer', '-cnewer', '-samefile']);

const RUNS = 'would run another program';
const WRITES = 'would write to a file';
const FOLLOWS = 'follows symbolic links, which can lead out of the allowed directories';

const REFUSED: Readonly<Record<string, string>> = {
  '-delete': 'would delete files',
  '-exec': RUNS, '-execdir': RUNS, '-ok': RUNS, '-okdir': RUNS,
  '-fprint': WRITES, '-fprint0': WRITES, '-fprintf': WRITES, '-fls': WRITES,
  '-follow': FOLLOWS, '-L': FOLLOWS,
  '-files0-from': 'reads starting points from a file, which bypasses the check on every path',
};

// -newerXY: the reference is a file unless Y is 't' (then a date string).
const NEWER_XY = /^-newer[aBcm]([aBcmt])$/;

const isExpressionStart = (arg: string): boolean => arg.startsWith('-') || arg === '(' || arg === ')' || arg === '!' || arg === ',';

/**
 * find is not getopt: leading -H/-P (and `--`, which ends only those),
 * then starting points, then an expression. Every primary must be on the
 * list; starting points and file arguments are checked paths. With -P (the
 * default) find never follows a symlink it meets, so a link inside that
 * points out is listed, not entered.
 */
export async function planFind(ctx: PolicyContext): Promise<CommandPlan> {
  const { argv } = ctx;
  let i = 1;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-H' || arg === '-P') continue;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '-L' || arg === '-D' || /^-O\d*$/.test(arg)) throw refused(`find ${arg} ${REFUSED[arg] ?? 'is not on the allow-list'}`);
    break;
  }
  for (; i < argv.length && !isExpressionStart(argv[i]!); i++) {
    await checkPathValue(ctx, argv[i]!, i, false, 'find');
  }
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    const reason = REFUSED[arg];
    if (reason !== undefined) throw refused(`find ${arg} ${reason}`);
    if (FLAGS.has(arg)) continue;
    const newer = NEWER_XY.exec(arg);
    const takesPath = WITH_PATH.has(arg) || (newer !== null && newer[1] !== 't');
    if (!takesPath && !WITH_VALUE.has(arg) && newer === null) {
      if (arg.startsWith('-')) throw refused(`find ${arg} (${argName(i, arg)}) is not on the allow-list`);
      throw invalid(`find: ${argName(i, arg)} is neither a primary nor an operator; starting points come before the expression`);
    }
    if (i + 1 >= argv.length) throw invalid(`find ${arg} needs an argument`);
    i++;
    if (takesPath) await checkPathValue(ctx, argv[i]!, i, false, 'find');
  }
  return { program: 'find', args: argv.slice(1), cwd: ctx.cwd, quietExits: {} };
}
