import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { describeErrno, spawnInGroup } from './spawn.js';
import { terminateGroup, type StopTimings } from './stop.js';

export interface RunCommandOptions {
  /** The whole environment of the command: nothing of ours is added to it. Ours by default. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of stdout kept; the rest is counted, not stored. */
  maxStdoutBytes?: number;
  /** Bytes at the end of stderr kept for the error message. */
  stderrTailBytes?: number;
}

export type CommandOutcome =
  | { kind: 'exited'; exitCode: number | null; signal: NodeJS.Signals | null; stdout: string; stdoutDroppedBytes: number; stderrTail: string }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
  | { kind: 'spawn-error'; errno: string; reason: string };

const DEFAULT_MAX_STDOUT = 1 << 20;
const DEFAULT_STDERR_TAIL = 4096;
/**
 * A command that overran its time or was cancelled has nothing to finish:
 * its group gets SIGTERM and SIGKILL at once (stdin is not open). The
 * outcome does not wait for the group to be gone.
 */
const RUN_STOP: Pick<StopTimings, 'termGraceMs' | 'killGraceMs'> = { termGraceMs: 0, killGraceMs: 0 };

/**
 * Runs argv without a shell in a process group of its own, so a timeout or
 * an abort kills the command's children too (a `sleep` a script started
 * would otherwise keep the pipes open and outlive us). Never throws for
 * anything the command does: every end is an outcome.
 *
 * Not on execa, which the design named for one-shot runs: measured here
 * (bench/tool-call.ts, side by side), it cost 0.3-0.4 ms more per run than
 * Node's spawn (a fifth of a whole tool call) and 60-86 ms to import in every
 * server that runs commands, and its timeout, cancelSignal and maxBuffer do
 * not fit (the first two kill the child, not its group; the third ends a
 * command whose output is only being cut), so all of that is ours anyway.
 */
export function runCommand(argv: readonly string[], options: RunCommandOptions): Promise<CommandOutcome> {
  const [program, ...args] = argv;
  if (program === undefined || program === '') {
    return Promise.resolve({ kind: 'spawn-error', errno: 'EINVAL', reason: 'empty command' });
  }
  if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
  // Node refuses it with a message that quotes the whole argument, which may be megabytes.
  if (argv.some((part) => part.includes('\u0000'))) return Promise.resolve(spawnError('ERR_INVALID_ARG_VALUE', 'NUL byte in an argument'));

  return new Promise((resolve) => {
    const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
    const stderrTail = options.stderrTailBytes ?? DEFAULT_STDERR_TAIL;
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stdoutDropped = 0;
    let stderr = Buffer.alloc(0);
    let settled = false;

    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawnInGroup(program, args, { env: options.env ?? process.env, ...(options.cwd === undefined ? {} : { cwd: options.cwd }), stdio: ['ignore', 'pipe', 'pipe'] }) as ChildProcessByStdio<null, Readable, Readable>;
    } catch (error) {
      // Some refusals come from spawn itself, not as an 'error' event: an argument list
      // over the kernel's limit (E2BIG), a NUL byte in an environment value.
      const { code, message } = error as NodeJS.ErrnoException;
      resolve(spawnError(code ?? 'UNKNOWN', message));
      return;
    }

    const finish = (outcome: CommandOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Also after a normal end: what the command left running in its group goes with it.
      // terminateGroup never rejects (a group already gone is not an error); the outcome does not wait for the group.
      if (child.pid !== undefined) void terminateGroup(child.pid, RUN_STOP);
      resolve(outcome);
    };
    const onAbort = (): void => finish({ kind: 'cancelled' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      const keep = Math.max(0, Math.min(chunk.length, maxStdout - stdoutBytes));
      if (keep > 0) stdoutChunks.push(chunk.subarray(0, keep));
      stdoutBytes += keep;
      stdoutDropped += chunk.length - keep;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > stderrTail) stderr = stderr.subarray(stderr.length - stderrTail);
    });
    // Refused at the start: ENOENT, EACCES, a missing cwd.
    child.on('error', (error: NodeJS.ErrnoException) => finish(spawnError(error.code ?? 'UNKNOWN', error.message)));
    // 'close' waits for the pipes too: output written by the command's children counts.
    child.on('close', (exitCode, signal) => {
      finish({
        kind: 'exited',
        exitCode,
        signal,
        stdout: Buffer.concat(stdoutChunks).toString('utf8'),
        stdoutDroppedBytes: stdoutDropped,
        stderrTail: stderr.toString('utf8'),
      });
    });
  });
}

function spawnError(errno: string, message: string): CommandOutcome {
  return { kind: 'spawn-error', errno, reason: describeErrno(errno, message) };
}
