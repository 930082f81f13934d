import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { logEvent } from '../../src/log/index.js';
import { runCommand } from '../../src/process/index.js';
import { interpreterEnv } from './child-env.js';
import { classifyTask } from './classify-task.js';
import { findCommand, resolveWorkingDir } from './locate.js';
import { errorResult, lastLines, limitOutput, outputResult, stripAnsi } from './results.js';
import { buildArgs, type InterpreterSettings } from './settings.js';
import { parseRunArguments } from './tool.js';

// stdout kept in memory before limitOutput() keeps its start and end: enough
// for the end to be the real end in all but runaway output.
const MIN_READ_BYTES = 1 << 20;
const STDERR_TAIL_BYTES = 8192;

/**
 * One call of openinterpreter.run: the task goes to the command as one argv
 * element (no shell), in the checked working folder, with the allow-listed
 * environment, the timeout and the output limit. Every end is a result.
 */
export async function runTask(settings: InterpreterSettings, rawArgs: unknown, signal: AbortSignal, serverEnv: NodeJS.ProcessEnv): Promise<CallToolResult> {
  const args = parseRunArguments(rawArgs);
  if ('invalid' in args) return errorResult('OPENINTERPRETER_INVALID_ARGUMENTS', args.invalid);
  const taskRisk = classifyTask(args.task);

  const program = await findCommand(settings.command, serverEnv.PATH);
  if (program === undefined) {
    return errorResult('OPENINTERPRETER_UNAVAILABLE', unavailableMessage(settings.command), { taskRisk, details: { command: settings.command } });
  }
  const where = await resolveWorkingDir(settings.cwd, args.cwd);
  if (where.kind === 'base-missing') return errorResult('OPENINTERPRETER_UNAVAILABLE', `${where.reason}: fix [adapters.openinterpreter] cwd`, { taskRisk });
  if (where.kind === 'refused') return errorResult('OPENINTERPRETER_CWD_REFUSED', `working folder refused: ${where.reason}`, { taskRisk });

  const started = Date.now();
  const outcome = await runCommand([program, ...buildArgs(settings.args, args.task)], {
    cwd: where.dir,
    env: interpreterEnv(serverEnv, settings.extraEnv),
    timeoutMs: settings.timeoutMs,
    signal,
    maxStdoutBytes: Math.max(MIN_READ_BYTES, settings.maxOutputChars * 8),
    stderrTailBytes: STDERR_TAIL_BYTES,
  });
  // The task text stays out of the log: only its size and risk.
  logEvent('info', 'openinterpreter_run', {
    outcome: outcome.kind,
    ...(outcome.kind === 'exited' ? { exitCode: outcome.exitCode, signal: outcome.signal } : {}),
    durationMs: Date.now() - started,
    taskChars: args.task.length,
    risk: taskRisk.risk,
    cwd: where.dir,
  });

  switch (outcome.kind) {
    case 'spawn-error':
      // Found a moment ago, gone or not runnable now (or its #! interpreter is missing).
      return errorResult('OPENINTERPRETER_UNAVAILABLE', `${program} could not be started: ${outcome.reason} (${outcome.errno})`, {
        taskRisk,
        details: { command: settings.command },
      });
    case 'timeout':
      return errorResult(
        'OPENINTERPRETER_TIMEOUT',
        `Open Interpreter did not finish within ${settings.timeoutMs / 1000} s and was stopped with all its processes`,
        { taskRisk },
      );
    case 'cancelled':
      return errorResult('OPENINTERPRETER_CANCELLED', 'the call was cancelled and Open Interpreter was stopped with all its processes', { taskRisk });
    case 'exited': {
      const stdout = stripAnsi(outcome.stdout);
      if (outcome.exitCode !== 0) {
        const stderr = lastLines(stripAnsi(outcome.stderrTail));
        const how = outcome.exitCode === null ? `was killed by ${outcome.signal ?? 'a signal'}` : `exited with code ${outcome.exitCode}`;
        const last = (stderr || lastLines(stdout)).split('\n').at(-1) ?? '';
        return errorResult('OPENINTERPRETER_FAILED', last ? `Open Interpreter ${how}: ${last}` : `Open Interpreter ${how}`, {
          taskRisk,
          details: { exitCode: outcome.exitCode, signal: outcome.signal, stderr, stdout: lastLines(stdout) },
        });
      }
      const limited = limitOutput(stdout, settings.maxOutputChars, outcome.stdoutDroppedBytes);
      return outputResult(limited.text, taskRisk, limited.truncated);
    }
  }
}

function unavailableMessage(command: string): string {
  const where = command.includes('/') ? `${command} is not an executable file` : `"${command}" was not found on PATH`;
  return `Open Interpreter is not available: ${where}. Install it (pip install open-interpreter) or set [adapters.openinterpreter] command`;
}
