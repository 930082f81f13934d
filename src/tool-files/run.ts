import { runCommand, type CommandOutcome } from '../process/index.js';
import { isPlainTable } from '../config/index.js';
import { parameterValues, renderArgv, resolveProgram } from './argv.js';
import type { ToolDefinition } from './definition.js';

/** Characters of stdout returned to the model, as the predecessor did. */
export const MAX_OUTPUT_CHARS = 2000;

export interface ToolRunResult {
  text: string;
  isError: boolean;
}

export interface RunToolOptions {
  /** Added to the server's own environment (config `[env]`). */
  env?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Runs a tool file's command for one call. Whatever goes wrong becomes the
 * result text (`error: ...`), so the model can say it could not find out;
 * a tool never takes the server down.
 */
export async function runToolFile(tool: ToolDefinition, args: unknown, options: RunToolOptions = {}): Promise<ToolRunResult> {
  const input = args === undefined || args === null ? {} : args;
  if (!isPlainTable(input)) return failure('arguments must be a JSON object');
  const argv = renderArgv(tool.command, parameterValues(tool, input));
  argv[0] = resolveProgram(argv[0] ?? '', tool.dir);
  // runCommand: no shell, its own process group (a timeout kills the tool's children too).
  const outcome = await runCommand(argv, {
    // The server's whole environment on purpose, not the allow-list: a tool file is the owner's own program.
    env: { ...process.env, ...options.env },
    timeoutMs: tool.timeout.ms,
    signal: options.signal,
    // Bytes, not characters: a generous multiple of the character limit.
    maxStdoutBytes: MAX_OUTPUT_CHARS * 8,
  });
  return describeOutcome(argv[0] ?? '', outcome);
}

function describeOutcome(program: string, outcome: CommandOutcome): ToolRunResult {
  switch (outcome.kind) {
    case 'timeout':
      return failure('timed out');
    case 'cancelled':
      return failure('cancelled');
    case 'spawn-error':
      return failure(`cannot run ${program}: ${outcome.reason}`);
    case 'exited': {
      if (outcome.exitCode === 0) return { text: truncate(outcome.stdout.trim(), outcome.stdoutDroppedBytes > 0), isError: false };
      const lastLine = outcome.stderrTail.trim().split('\n').at(-1)?.trim();
      if (lastLine) return failure(lastLine);
      if (outcome.signal) return failure(`killed by ${outcome.signal}`);
      return failure(`exit status ${outcome.exitCode}`);
    }
  }
}

function failure(reason: string): ToolRunResult {
  return { text: `error: ${reason}`, isError: true };
}

/** Cuts to the limit with a mark the model and the user can see. */
export function truncate(text: string, alreadyCut = false): string {
  if (text.length <= MAX_OUTPUT_CHARS && !alreadyCut) return text;
  const kept = text.slice(0, MAX_OUTPUT_CHARS);
  const more = alreadyCut ? 'more than ' : '';
  return `${kept}\n[output truncated: ${more}${text.length - kept.length} characters cut]`;
}
