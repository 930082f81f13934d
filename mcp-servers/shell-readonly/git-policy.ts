import { stat } from 'node:fs/promises';
import { argName, invalid, refused } from './errors.js';
import { BRANCH_OPTIONS, DIFF_OPTIONS, GIT_SAFETY_CONFIG, HISTORY_OPTIONS, INJECTED, STATUS_OPTIONS } from './git-options.js';
import { hasOption, parseOptions, type OptionTable } from './options.js';
import { checkPathValue, type CommandPlan, type PolicyContext } from './plan.js';

export const GIT_SUBCOMMANDS: Readonly<Record<string, OptionTable>> = {
  status: STATUS_OPTIONS,
  log: HISTORY_OPTIONS,
  show: HISTORY_OPTIONS,
  diff: DIFF_OPTIONS,
  branch: BRANCH_OPTIONS,
};

const ELSEWHERE = 'points git at another repository or work tree; set cwd inside the repository instead';
const GLOBAL_REFUSED: Readonly<Record<string, string>> = {
  '-c': 'sets configuration, which can name programs for git to run',
  '--config-env': 'sets configuration, which can name programs for git to run',
  '--exec-path': 'changes where git finds the programs it runs',
  '--git-dir': ELSEWHERE,
  '--work-tree': ELSEWHERE,
  '--namespace': ELSEWHERE,
  '--bare': ELSEWHERE,
  '--super-prefix': ELSEWHERE,
  '-p': 'starts a pager',
  '--paginate': 'starts a pager',
  '-h': 'starts man and a pager',
  '--help': 'starts man and a pager',
};

/** Global options that change nothing this tool cares about. */
const GLOBAL_PASSED = new Set(['--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects']);

/**
 * git with one of its read-only subcommands. Global options are an
 * allow-list too; `-C DIR` is taken as a change of cwd (checked like cwd).
 * Operands are revisions or paths and are all checked as paths: a revision
 * such as `HEAD~2` or `main..topic` resolves to a name inside cwd and
 * passes, while `/etc` or `../..` out of the allowed directories does not.
 */
export async function planGit(ctx: PolicyContext): Promise<CommandPlan> {
  const { argv } = ctx;
  let cwd = ctx.cwd;
  const passed: string[] = [];
  let i = 1;
  for (; i < argv.length && argv[i]!.startsWith('-'); i++) {
    const arg = argv[i]!;
    const name = arg.startsWith('--') ? arg.split('=')[0]! : arg.slice(0, 2);
    const reason = GLOBAL_REFUSED[name];
    if (reason !== undefined) throw refused(`git ${name} ${reason}`);
    if (arg === '-C') {
      if (i + 1 >= argv.length) throw invalid('git -C needs a directory');
      i++;
      cwd = await changeDirectory(ctx, cwd, i);
    } else if (GLOBAL_PASSED.has(arg)) {
      passed.push(arg);
    } else if (arg !== '--no-pager' && arg !== '-P') {
      throw refused(`git option ${arg} (${argName(i, arg)}) is not on the allow-list`);
    }
  }
  const subcommand = argv[i];
  if (subcommand === undefined) throw invalid(`git needs a subcommand: ${Object.keys(GIT_SUBCOMMANDS).join(', ')}`);
  const table = Object.hasOwn(GIT_SUBCOMMANDS, subcommand) ? GIT_SUBCOMMANDS[subcommand] : undefined;
  if (table === undefined) {
    throw refused(`git ${subcommand} is not one of the read-only git subcommands allowed: ${Object.keys(GIT_SUBCOMMANDS).join(', ')}`);
  }
  const parsed = parseOptions(`git ${subcommand}`, table, argv, i + 1);
  if (subcommand === 'branch') {
    const first = parsed.operands[0];
    if (first && !hasOption(parsed, '-l', '--list')) {
      throw refused(`git branch ${JSON.stringify(first.value)} would create a branch; add --list to list branches matching a pattern, and give option values glued (--contains=REV)`);
    }
  } else {
    for (const operand of parsed.operands) await checkPathValue(ctx, operand.value, operand.index, false, 'git', cwd);
  }
  const globalArgs = ['--no-pager', ...GIT_SAFETY_CONFIG, ...passed];
  return {
    program: 'git',
    args: [...globalArgs, subcommand, ...(INJECTED[subcommand] ?? []), ...argv.slice(i + 1)],
    cwd,
    quietExits: {},
    git: { subcommand, globalArgs },
  };
}

async function changeDirectory(ctx: PolicyContext, from: string, index: number): Promise<string> {
  const value = ctx.argv[index]!;
  const checked = await ctx.guard.check(value, from, argName(index, value));
  const info = checked.exists ? await stat(checked.real).catch(() => undefined) : undefined;
  if (!info?.isDirectory()) throw invalid(`git -C ${argName(index, value)} is not a directory`);
  return checked.real;
}
