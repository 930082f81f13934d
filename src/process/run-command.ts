import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface RunCommandOptions {
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
 * Runs argv without a shell in a process group of its own, so a timeout or
 * an abort kills the command's children too (a `sleep` a script started
 * would otherwise keep the pipes open and outlive us). Never throws for
 * anything the command does: every end is an outcome.
 */
export function runCommand(argv: readonly string[], options: RunCommandOptions): Promise<CommandOutcome> {
  const [program, ...args] = argv;
  if (program === undefined || program === '') {
    return Promise.resolve({ kind: 'spawn-error', errno: 'EINVAL', reason: 'empty command' });
  }
  if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled' });

  return new Promise((resolve) => {
    const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
    const stderrTail = options.stderrTailBytes ?? DEFAULT_STDERR_TAIL;
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stdoutDropped = 0;
    let stderr = Buffer.alloc(0);
    let ended: 'timeout' | 'cancelled' | undefined;
    let settled = false;

    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn(program, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      // Some refusals come from spawn itself, not as an 'error' event: an argument list
      // over the kernel's limit (E2BIG), a NUL byte in an argument or an environment value.
      const { code, message } = error as NodeJS.ErrnoException;
      resolve({ kind: 'spawn-error', errno: code ?? 'UNKNOWN', reason: describeErrno(code, message) });
      return;
    }

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
    };

    const finish = (outcome: CommandOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      killGroup();
      resolve(outcome);
    };

    const stop = (reason: 'timeout' | 'cancelled'): void => {
      ended ??= reason;
      finish({ kind: ended });
    };
    const onAbort = (): void => stop('cancelled');
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
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
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({ kind: 'spawn-error', errno: error.code ?? 'UNKNOWN', reason: describeErrno(error.code, error.message) });
    });
    // 'close' waits for the pipes too: output written by a child's children counts.
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

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  ENOEXEC: 'Exec format error',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  E2BIG: 'Argument list too long',
  ENOMEM: 'Cannot allocate memory',
  // Node's own message quotes the whole value, which may be megabytes.
  ERR_INVALID_ARG_VALUE: 'an argument or environment value holds a NUL byte',
};

function describeErrno(code: string | undefined, fallback: string): string {
  return (code && ERRNO_TEXT[code]) ?? fallback;
}
