import { stat } from 'node:fs/promises';
import { SIMPLE_COMMANDS, type SimpleCommand } from './command-table.js';
import { argName, invalid, refused } from './errors.js';
import { planFind } from './find-policy.js';
import { planGit } from './git-policy.js';
import type { ShellInput } from './input.js';
import { hasOption, parseOptions } from './options.js';
import type { PathGuard } from './path-guard.js';
import { checkPathValue, type CommandPlan, type PolicyContext } from './plan.js';

/** Every program the tool runs, by the name the caller gives. */
export const ALLOWED_PROGRAMS: readonly string[] = [...Object.keys(SIMPLE_COMMANDS), 'find', 'git'];

/**
 * Decides whether a call may run, and how: the program by name from the
 * allow-list, cwd and every path argument inside the allowed directories,
 * every option on the command's allow-list. Throws a shell error (SHELL_*) otherwise.
 */
export async function planCommand(input: ShellInput, guard: PathGuard): Promise<CommandPlan> {
  const program = input.argv[0] ?? '';
  if (program.includes('/')) {
    throw refused(`argv[0] ${JSON.stringify(program)} is a path; give the program by name (one of ${ALLOWED_PROGRAMS.join(', ')})`);
  }
  if (!ALLOWED_PROGRAMS.includes(program)) {
    throw refused(`${JSON.stringify(program)} is not on the allow-list of read-only commands: ${ALLOWED_PROGRAMS.join(', ')}`);
  }
  const ctx: PolicyContext = { argv: input.argv, cwd: await workingDirectory(input.cwd, guard), guard };
  if (program === 'find') return planFind(ctx);
  if (program === 'git') return planGit(ctx);
  return planSimple(ctx, program, SIMPLE_COMMANDS[program]!);
}

async function workingDirectory(cwd: string | undefined, guard: PathGuard): Promise<string> {
  if (cwd === undefined) return guard.home;
  const checked = await guard.check(cwd, guard.home, `cwd ${JSON.stringify(cwd)}`);
  const info = checked.exists ? await stat(checked.real).catch(() => undefined) : undefined;
  if (!info?.isDirectory()) throw invalid(`cwd ${JSON.stringify(cwd)} is not an existing directory`);
  return checked.real;
}

async function planSimple(ctx: PolicyContext, program: string, command: SimpleCommand): Promise<CommandPlan> {
  const parsed = parseOptions(program, command.options, ctx.argv, 1);
  for (const option of parsed.options) {
    if ((option.kind === 'path' || option.kind === 'read') && option.value !== undefined) {
      await checkPathValue(ctx, option.value, option.valueIndex ?? option.index, option.kind === 'read', program);
    }
  }
  let operands = parsed.operands;
  if (command.patternFirst && !hasOption(parsed, '-e', '--regexp', '-f', '--file')) operands = operands.slice(1);
  if (command.maxOperands !== undefined && operands.length > command.maxOperands) {
    const extra = operands[command.maxOperands]!;
    const why = program === 'uniq' ? "uniq's second operand is an output file it would write" : `${program} takes at most ${command.maxOperands} operand(s)`;
    throw refused(`${argName(extra.index, extra.value)}: ${why}`);
  }
  for (const operand of operands) {
    switch (command.operands) {
      case 'none':
        throw invalid(`${program} takes no operands (${argName(operand.index, operand.value)})`);
      case 'date-format':
        if (!operand.value.startsWith('+')) throw refused(`date ${argName(operand.index, operand.value)} would set the system clock; a format starts with '+'`);
        break;
      default:
        await checkPathValue(ctx, operand.value, operand.index, command.operands === 'reads', program);
    }
  }
  const runAs = command.runAs ?? { program, args: [] };
  return { program: runAs.program, args: [...runAs.args, ...ctx.argv.slice(1)], cwd: ctx.cwd, quietExits: command.quietExits ?? {} };
}
