/**
 * One espeak-ng run: argv without a shell, the text on stdin (a sentence
 * that starts with "-" would otherwise be read as an option, and argv has a
 * length limit), the process module's allow-listed environment, its own
 * process group, and the module's stop, which cannot hang.
 *
 * Not runCommand, though it is a one-shot run: its callers (EspeakTts, the
 * Kokoro phonemizer) hand in the spawn function, which tests use to watch
 * the real process, and the audio is read from stdout as it comes, under a
 * stall timer of the caller's, not as a result.
 */
import { allowListedEnv, inOwnGroup, spawnPiped, stopGroup, type ChildProcessWithoutNullStreams, type PipedSpawn, type StopTimings } from '../../process/index.js';

export type SpawnFn = PipedSpawn;

const STDERR_TAIL = 2000;
/**
 * stdin is closed at the start (it carries the text), so a stop is SIGTERM
 * at once; espeak-ng exits on it, so the 500 ms only matter for a stuck one.
 */
const STOP: StopTimings = { stdinGraceMs: 0, termGraceMs: 500, killGraceMs: 500 };

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
  /** SIGTERM to its group, then SIGKILL if it is still there; a no-op once it has exited. */
  stop(): void;
}

export function startEspeak(program: string, args: readonly string[], input: string, spawnFn: SpawnFn = spawnPiped): EspeakRun {
  const child = spawnFn(program, args, inOwnGroup({ env: allowListedEnv(process.env) }));
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
    // stopGroup never rejects; `ended` tells when the process is gone.
    void stopGroup(child, STOP);
  };
  return { child, ended, stderrTail: () => stderr, stop };
}

/** The last line of stderr, trimmed: espeak-ng says what went wrong in one line. */
export function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim().slice(0, 300) ?? '';
}
