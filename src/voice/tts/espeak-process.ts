/**
 * One espeak-ng run: argv without a shell, the text on stdin (a sentence
 * that starts with "-" would otherwise be read as an option, and argv has a
 * length limit), a small environment, and a stop that cannot hang.
 */
import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio } from 'node:child_process';

export type SpawnFn = (command: string, args: readonly string[], options: SpawnOptionsWithoutStdio) => ChildProcessWithoutNullStreams;

/** espeak-ng needs no secrets: only what finds the program, its data and the locale. */
const ENV_ALLOW = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'ESPEAK_DATA_PATH'];
const STDERR_TAIL = 2000;
/** After SIGTERM; espeak-ng exits at once, so this only matters for a stuck process. */
const KILL_GRACE_MS = 500;

export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the program could not be started (ENOENT: not installed). */
  error?: NodeJS.ErrnoException;
}

export interface EspeakRun {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves once the process has exited and its pipes are closed, or failed to start. */
  readonly ended: Promise<ProcessEnd>;
  stderrTail(): string;
  /** SIGTERM, then SIGKILL if it is still there; a no-op once it has exited. */
  stop(): void;
}

export function espeakEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ENV_ALLOW) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}

export function startEspeak(program: string, args: readonly string[], input: string, spawnFn: SpawnFn = spawn): EspeakRun {
  const child = spawnFn(program, args, { env: espeakEnv() });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL);
  });
  // EPIPE when espeak-ng exits before reading (an unknown voice): its exit status says why.
  child.stdin.on('error', () => undefined);
  child.stdin.end(input);
  const ended = new Promise<ProcessEnd>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const stop = (): void => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    timer.unref();
    child.once('exit', () => clearTimeout(timer));
  };
  return { child, ended, stderrTail: () => stderr, stop };
}

/** The last line of stderr, trimmed: espeak-ng says what went wrong in one line. */
export function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim().slice(0, 300) ?? '';
}
