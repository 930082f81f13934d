import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { delay, groupAlive, pollUntil, signalGroup } from '../../process/index.js';

/** How long each step of a stop waits before the next, harder one. */
export interface StopTimings {
  /** After closing stdin, before SIGTERM. */
  stdinGraceMs: number;
  /** After SIGTERM, before SIGKILL (and after SIGKILL, before giving up on the pipes). */
  termGraceMs: number;
}

// The SDK's StdioClientTransport waits 2 s at each step too.
export const DEFAULT_STOP_TIMINGS: StopTimings = { stdinGraceMs: 2000, termGraceMs: 2000 };

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

/** The command could not be started at all (ENOENT, EACCES, a missing cwd). */
export class SpawnError extends Error {
  constructor(
    message: string,
    readonly errno: string,
  ) {
    super(message);
    this.name = 'SpawnError';
  }
}

/**
 * An MCP client transport over a child's stdin/stdout, like the SDK's
 * StdioClientTransport, but: the child leads a process group of its own,
 * so stopping it (stdin closed, then SIGTERM, then SIGKILL, with timings we
 * choose) reaches its children too; a crash also clears what it left
 * behind; and `onclose` fires only once the pipes are drained, so a last
 * answer or stderr line written before the exit is not lost.
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
      const child = spawn(command, args, { env, cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
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
    if (!skipStdin) {
      child.stdin?.end();
      await Promise.race([this.exited.promise, delay(this.options.stop.stdinGraceMs), this.skipGrace.promise]);
    }
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
      const pgid = this.child?.pid;
      if (pgid === undefined) return;
      const { termGraceMs } = this.options.stop;
      const gone = (): boolean => !groupAlive(pgid);
      if (!gone()) {
        signalGroup(pgid, 'SIGTERM');
        if (!(await pollUntil(gone, termGraceMs))) {
          signalGroup(pgid, 'SIGKILL');
          await pollUntil(gone, termGraceMs);
        }
      }
      await Promise.race([this.closed.promise, delay(termGraceMs)]);
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

function describeSpawnError(error: NodeJS.ErrnoException, command: string, cwd: string | undefined): SpawnError {
  const errno = error.code ?? 'UNKNOWN';
  // spawn reports a missing cwd as ENOENT too, which would blame the command.
  if (errno === 'ENOENT' && cwd !== undefined && !existsSync(cwd)) {
    return new SpawnError(`working folder not found: ${cwd}`, errno);
  }
  if (errno === 'ENOENT') return new SpawnError(`command not found: ${command}`, errno);
  if (errno === 'EACCES') return new SpawnError(`command not executable: ${command}`, errno);
  return new SpawnError(`cannot start ${command}: ${error.message}`, errno);
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
