import { existsSync } from 'node:fs';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../errors/index.js';
import { PROCESS_SPAWN_FAILED, delay, describeErrno, spawnInGroup, stopGroup, terminateGroup, type ChildProcess, type StopTimings } from '../../process/index.js';

// The hub's stop is the process module's, with its defaults (the SDK's 2 s a step).
export { DEFAULT_STOP_TIMINGS, type StopTimings } from '../../process/index.js';

export interface ProcessTransportOptions {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  stop: StopTimings;
  onStderr?: (text: string) => void;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * An MCP client transport over a child's stdin/stdout, like the SDK's
 * StdioClientTransport, but: the child leads a process group of its own,
 * so stopping it (stdin closed, then SIGTERM, then SIGKILL, with timings we
 * choose) reaches its children too; a crash also clears what it left
 * behind; and `onclose` fires only once the pipes are drained, so a last
 * answer or stderr line written before the exit is not lost.
 *
 * The child is a long-lived peer spoken to in the SDK's newline-delimited
 * JSON-RPC framing (ReadBuffer, serializeMessage) over raw pipes; it starts
 * and stops through the process module (spawnInGroup, stopGroup).
 *
 * A start that fails rejects with an AppError PROCESS_SPAWN_FAILED whose
 * message says why (command not found, working folder not found, ...).
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly readBuffer = new ReadBuffer();
  private exitInfo?: ProcessExit;
  private finished = false;
  private stopping?: Promise<void>;
  private reaping?: Promise<void>;
  private readonly exited = deferred();
  private readonly closed = deferred();
  private readonly skipGrace = deferred();
  private readonly waitingForDrain = new Set<() => void>();

  constructor(private readonly options: ProcessTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.exitInfo;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('ProcessTransport already started'));
    const { command, args, env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawnInGroup(command, args, { env, ...(cwd === undefined ? {} : { cwd }), stdio: ['pipe', 'pipe', 'pipe'] });
      } catch (error) {
        // Refused before starting (E2BIG, a NUL byte): no 'error' event follows.
        this.exited.resolve();
        reject(describeSpawnError(error as NodeJS.ErrnoException, command, cwd));
        return;
      }
      this.child = child;
      child.once('spawn', () => resolve());
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) {
          this.onerror?.(error);
          return;
        }
        this.exited.resolve();
        reject(describeSpawnError(error, command, cwd));
      });
      child.on('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        this.exited.resolve();
        // reap() never rejects (terminateGroup does not); stop() awaits the same promise.
        void this.reap();
      });
      // 'close' comes after 'exit' once stdout and stderr are drained (or at once after a spawn error).
      child.on('close', () => this.finish());
      child.stdin?.on('error', (error) => this.onerror?.(error)); // EPIPE once it exited
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => this.options.onStderr?.(text));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.finished || stdin.writableEnded || stdin.destroyed) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(serializeMessage(message))) {
        resolve();
        return;
      }
      // A full pipe: wait for it to drain, or for the process to end (then
      // the drain never comes, and a sender awaiting it would hang).
      const settle = (): void => {
        stdin.off('drain', settle);
        this.waitingForDrain.delete(settle);
        if (this.finished) reject(new Error('Not connected'));
        else resolve();
      };
      stdin.once('drain', settle);
      this.waitingForDrain.add(settle);
    });
  }

  /** The polite stop: stdin closed, then SIGTERM, then SIGKILL, to the whole group. */
  close(): Promise<void> {
    this.stopping ??= this.stop(false);
    return this.stopping;
  }

  /** Skips the wait after closing stdin: for a server that already misbehaves. */
  terminate(): Promise<void> {
    this.skipGrace.resolve();
    this.stopping ??= this.stop(true);
    return this.stopping;
  }

  private async stop(skipStdin: boolean): Promise<void> {
    const child = this.child;
    if (!child || this.finished) return;
    // terminate() skips the stdin step: reap() goes straight to SIGTERM.
    if (!skipStdin) await stopGroup(child, this.options.stop, { skipStdinGrace: this.skipGrace.promise });
    await this.reap();
    await this.closed.promise;
  }

  /**
   * SIGTERM, then SIGKILL, to whatever of the group still runs: the server
   * itself when stopping, its orphans after it exited. Then makes sure
   * `onclose` fires even if an escaped grandchild still holds a pipe.
   */
  private reap(): Promise<void> {
    this.reaping ??= (async () => {
      const child = this.child;
      const pgid = child?.pid;
      if (pgid === undefined) return;
      // Joins the stop of stopGroup() when one runs: one SIGTERM, not two.
      await terminateGroup(pgid, this.options.stop, child);
      await Promise.race([this.closed.promise, delay(this.options.stop.killGraceMs)]);
      if (!this.finished) {
        this.child?.stdout?.destroy();
        this.child?.stderr?.destroy();
        this.finish();
      }
    })();
    return this.reaping;
  }

  private receive(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (error) {
      // Over the SDK's 10 MiB line limit: the server is broken; stop it like a crash.
      this.onerror?.(error as Error);
      // terminate() never rejects; onerror above has reported why, and onclose follows.
      void this.terminate();
      return;
    }
    for (;;) {
      try {
        const message = this.readBuffer.readMessage();
        if (message === null) break;
        this.onmessage?.(message);
      } catch (error) {
        // A line that is not JSON-RPC (a stray console.log): reported, skipped.
        this.onerror?.(error as Error);
      }
    }
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.exited.resolve();
    this.readBuffer.clear();
    this.closed.resolve();
    for (const settle of [...this.waitingForDrain]) settle();
    this.onclose?.();
  }
}

/** The errno stays on `cause.code`; callers branch on the AppError's code. */
function describeSpawnError(error: NodeJS.ErrnoException, command: string, cwd: string | undefined): AppError {
  const failed = (message: string): AppError => new AppError(PROCESS_SPAWN_FAILED, message, { cause: error });
  // spawn reports a missing cwd as ENOENT too, which would blame the command.
  if (error.code === 'ENOENT' && cwd !== undefined && !existsSync(cwd)) return failed(`working folder not found: ${cwd}`);
  if (error.code === 'ENOENT') return failed(`command not found: ${command}`);
  if (error.code === 'EACCES') return failed(`command not executable: ${command}`);
  return failed(`cannot start ${command}: ${describeErrno(error.code, error.message)}`);
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
