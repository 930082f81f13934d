import { runCommand, type CommandOutcome } from '../../src/process/index.js';
import { commandEnvironment, findProgram } from './environment.js';
import { shellError } from './errors.js';
import { checkRepository } from './git-repo-guard.js';
import type { PathGuard } from './path-guard.js';
import type { CommandPlan } from './plan.js';

export interface RunLimits {
  timeoutMs: number;
  maxOutputChars: number;
}

const STDERR_LINES = 10;

/**
 * Runs a plan and returns the text for the model; anything else is a
 * shell error (timeout, non-zero exit, cancel). One deadline covers the
 * git repository check and the command.
 */
export async function runPlan(plan: CommandPlan, guard: PathGuard, limits: RunLimits, signal?: AbortSignal): Promise<string> {
  const deadline = Date.now() + limits.timeoutMs;
  const env = commandEnvironment(guard);
  const path = await findProgram(plan.program);
  // UTF-8 takes at most 4 bytes a character: enough bytes for the characters kept.
  const maxStdoutBytes = limits.maxOutputChars * 4 + 4;
  const run = (args: readonly string[]): Promise<CommandOutcome> =>
    runCommand([path, ...args], { env, cwd: plan.cwd, timeoutMs: Math.max(1, deadline - Date.now()), signal, maxStdoutBytes });

  if (plan.git) {
    const { subcommand, globalArgs } = plan.git;
    await checkRepository(subcommand, guard, async (args) => {
      const outcome = settle(plan.program, await run([...globalArgs, ...args]), limits);
      return { exitCode: outcome.exitCode, stdout: outcome.stdout };
    });
  }
  const outcome = settle(plan.program, await run(plan.args), limits);
  const quiet = outcome.exitCode === null ? undefined : plan.quietExits[outcome.exitCode];
  if (outcome.exitCode !== 0 && quiet === undefined) {
    const stderr = lastLines(outcome.stderrTail);
    const status = outcome.signal ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
    throw shellError('SHELL_FAILED', `${plan.program} ${status}${stderr ? `: ${stderr.split('\n').at(-1)}` : ''}`, {
      ...(outcome.exitCode === null ? {} : { exitCode: outcome.exitCode }),
      stderr,
      ...(outcome.stdout ? { stdout: truncate(outcome.stdout, outcome.stdoutDroppedBytes, limits.maxOutputChars) } : {}),
    });
  }
  // The final newline says nothing to the model; the tools server drops it too.
  const stdout = outcome.stdoutDroppedBytes > 0 ? outcome.stdout : outcome.stdout.replace(/\n+$/, '');
  if (stdout === '') return quiet ?? '(no output)';
  return truncate(stdout, outcome.stdoutDroppedBytes, limits.maxOutputChars);
}

type Exited = Extract<CommandOutcome, { kind: 'exited' }>;

function settle(program: string, outcome: CommandOutcome, limits: RunLimits): Exited {
  switch (outcome.kind) {
    case 'exited':
      return outcome;
    case 'timeout':
      throw shellError('SHELL_TIMEOUT', `${program} did not finish within ${limits.timeoutMs / 1000} s and was stopped`);
    case 'cancelled':
      throw shellError('SHELL_FAILED', `${program} was cancelled`);
    case 'spawn-error':
      throw shellError('SHELL_FAILED', `cannot run ${program}: ${outcome.reason}`);
  }
}

/** Cuts to the limit with a mark the model and the user can see; the size is in bytes, all that is known of the dropped part. */
export function truncate(text: string, droppedBytes: number, maxChars: number): string {
  if (text.length <= maxChars && droppedBytes === 0) return text;
  let end = Math.min(text.length, maxChars);
  // Never end on the first half of a surrogate pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  const totalBytes = Buffer.byteLength(text) + droppedBytes;
  return `${text.slice(0, end)}\n[output truncated: the first ${end} characters of ${totalBytes} bytes are shown]`;
}

function lastLines(text: string): string {
  return text.trimEnd().split('\n').slice(-STDERR_LINES).join('\n');
}
