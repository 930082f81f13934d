import { execa } from 'execa';
import { describeErrno } from './spawn.js';
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
 * Runs argv without a shell, through execa, in a process group of its own,
 * so a timeout or an abort kills the command's children too (a `sleep` a
 * script started would otherwise keep the pipes open and outlive us). Never
 * throws for anything the command does: every end is an outcome.
 *
 * execa's own timeout, cancelSignal and maxBuffer are not used: the first
 * two kill the child, not its group, and the third ends a command that
 * prints more than it keeps, where here the rest is counted and the
 * command's exit status still counts.
 */
export function runCommand(argv: readonly string[], options: RunCommandOptions): Promise<CommandOutcome> {
  const [program, ...args] = argv;
  if (program === undefined || program === '') {
    return Promise.resolve({ kind: 'spawn-error', errno: 'EINVAL', reason: 'empty command' });
  }
  if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
  // execa refuses it itself, with a TypeError that quotes the whole argument.
  if (argv.some((part) => part.includes('\u0000'))) return Promise.resolve(spawnError('ERR_INVALID_ARG_VALUE', 'NUL byte in an argument'));

  return new Promise((resolve) => {
    const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
    const stderrTail = options.stderrTailBytes ?? DEFAULT_STDERR_TAIL;
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stdoutDropped = 0;
    let stderr = Buffer.alloc(0);
    let settled = false;

    let subprocess: ReturnType<typeof start>;
    try {
      subprocess = start(program, args, options);
    } catch (error) {
      // An option execa or spawn refuses before starting anything.
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
      if (subprocess.pid !== undefined) void terminateGroup(subprocess.pid, RUN_STOP);
      resolve(outcome);
    };
    const onAbort = (): void => finish({ kind: 'cancelled' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    subprocess.stdout.on('data', (chunk: Buffer) => {
      const keep = Math.max(0, Math.min(chunk.length, maxStdout - stdoutBytes));
      if (keep > 0) stdoutChunks.push(chunk.subarray(0, keep));
      stdoutBytes += keep;
      stdoutDropped += chunk.length - keep;
    });
    subprocess.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > stderrTail) stderr = stderr.subarray(stderr.length - stderrTail);
    });
    // execa settles once the command exited and its pipes closed: output written by its children counts.
    void subprocess.then((result) => {
      if (subprocess.pid === undefined) {
        // Refused at the start: ENOENT, EACCES, E2BIG, a missing cwd, a NUL byte in the environment.
        const cause = result.cause as NodeJS.ErrnoException | undefined;
        finish(spawnError(result.code ?? cause?.code ?? 'UNKNOWN', cause?.message ?? result.shortMessage ?? 'not started'));
        return;
      }
      finish({
        kind: 'exited',
        exitCode: result.exitCode ?? null,
        signal: (result.signal as NodeJS.Signals | undefined) ?? null,
        stdout: Buffer.concat(stdoutChunks).toString('utf8'),
        stdoutDroppedBytes: stdoutDropped,
        stderrTail: stderr.toString('utf8'),
      });
    });
  });
}

function start(program: string, args: readonly string[], options: RunCommandOptions) {
  return execa(program, args, {
    env: options.env ?? process.env,
    // execa's default adds the whole of process.env to `env`.
    extendEnv: false,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    detached: true,
    stdin: 'ignore',
    // Read as it comes, by runCommand: the first maxStdoutBytes are kept, the rest counted.
    buffer: false,
    encoding: 'buffer',
    reject: false,
  });
}

function spawnError(errno: string, message: string): CommandOutcome {
  return { kind: 'spawn-error', errno, reason: describeErrno(errno, message) };
}
