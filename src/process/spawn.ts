import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio, type StdioOptions } from 'node:child_process';

/** The code of the AppError for a child that could not be started (ENOENT, EACCES, a missing cwd). */
export const PROCESS_SPAWN_FAILED = 'PROCESS_SPAWN_FAILED';

export interface InGroupOptions {
  /** Given, never inherited by default: allowListedEnv(), or the whole environment on purpose. */
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Spawn options for a child that leads a process group of its own, without a shell. */
export function inOwnGroup(options: InGroupOptions): SpawnOptionsWithoutStdio {
  return { env: options.env, ...(options.cwd === undefined ? {} : { cwd: options.cwd }), detached: true, shell: false };
}

/**
 * Starts a child in a process group of its own, without a shell (stopGroup
 * stops it and everything it started): the long-lived ones read as streams
 * (MCP servers, whisper-server, amixer's events, espeak-ng), and runCommand's
 * one-shot runs.
 */
export function spawnInGroup(command: string, args: readonly string[], options: InGroupOptions & { stdio: StdioOptions }): ChildProcess {
  return spawn(command, args, { ...inOwnGroup(options), stdio: options.stdio });
}

/** Starts a child with its three pipes: Node's spawn, or a test's own that watches the real process. */
export type PipedSpawn = (command: string, args: readonly string[], options: SpawnOptionsWithoutStdio) => ChildProcessWithoutNullStreams;

/** Node's spawn with stdin, stdout and stderr piped: the default PipedSpawn. */
export const spawnPiped: PipedSpawn = (command, args, options) => spawn(command, args, options);

export type { ChildProcess, ChildProcessWithoutNullStreams };

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

/** A spawn failure's reason as a person reads it: the system's words for the errno. */
export function describeErrno(code: string | undefined, fallback: string): string {
  return (code && ERRNO_TEXT[code]) ?? fallback;
}
