import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError, isAppError, messageOf } from '../../errors/index.js';
import { LOGGER_PROGRESS, META_TIMEOUT_MS, type ProgressData } from '../../tool-meta/index.js';
import { PROCESS_SPAWN_FAILED, allowListedEnv } from '../../process/index.js';
import { callToolWithDeadline } from './call-tool.js';
import { listAllTools } from './list-tools.js';
import { ProcessTransport, type ProcessExit, type StopTimings } from './process-transport.js';
import { restartDelayMs, type RestartPolicy } from './restart-policy.js';
import { StderrTail } from './stderr-tail.js';
import type { CallOptions, ServerSpec, ServerState, ServerStatus } from './types.js';

export interface SupervisorOptions {
  clock: () => number;
  startTimeoutMs: number;
  restart: RestartPolicy;
  stop: StopTimings;
  stderrLines: number;
  /** The environment a server's `env` is added to. */
  env: NodeJS.ProcessEnv;
  clientInfo: { name: string; version: string };
  onState: (server: ServerSupervisor, state: ServerState, detail?: string) => void;
  onTools: (server: ServerSupervisor) => void;
  /** Protocol noise worth a log line: a late answer, a stray stdout line, a failed re-list. */
  onProtocolError: (server: ServerSupervisor, error: unknown) => void;
  /** A built-in server's report of long work (LOGGER_PROGRESS). */
  onProgress?: (server: ServerSupervisor, progress: ServerProgress) => void;
}

/** A built-in server's progress message, as sent. */
export type ServerProgress = ProgressData;

/** One run of the server process, from spawn to exit. */
interface Attempt {
  client: Client;
  transport: ProcessTransport;
  ready: boolean;
  readyAtMs: number;
  /** list_changed came before the first list was done. */
  listDirty: boolean;
  relisting?: Promise<void>;
  relistAgain: boolean;
}

// A built-in tool file declares its own timeout, which the tools server
// enforces; the hub waits that long plus this much for its answer.
const BUILTIN_TIMEOUT_MARGIN_MS = 2000;

/**
 * Keeps one stdio MCP server running: starts and initializes it, lists its
 * tools, follows list_changed, restarts it with backoff after a crash (its
 * last tool list stays, calls answer TOOL_UNAVAILABLE meanwhile), and stops it.
 */
export class ServerSupervisor {
  private currentState: ServerState = 'stopped';
  private toolList: Tool[] = [];
  private restarts = 0;
  private failures = 0;
  private error?: string;
  private readonly tail: StderrTail;
  private attempt?: Attempt;
  private restartTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly spec: ServerSpec,
    private readonly options: SupervisorOptions,
  ) {
    this.tail = new StderrTail(options.stderrLines);
  }

  get state(): ServerState {
    return this.currentState;
  }

  /** The last list the server gave, also while it is down. */
  get tools(): readonly Tool[] {
    return this.toolList;
  }

  status(): ServerStatus {
    const pid = this.attempt?.transport.pid;
    return {
      name: this.spec.name,
      state: this.currentState,
      trusted: this.spec.trusted,
      builtin: this.spec.builtin,
      commandLine: commandLine(this.spec),
      restarts: this.restarts,
      stderrTail: this.tail.lines(),
      ...(this.error === undefined ? {} : { error: this.error }),
      toolCount: this.toolList.length,
      ...(pid === undefined ? {} : { pid }),
    };
  }

  /** Resolves once the server is ready or failed; never rejects. */
  async start(): Promise<void> {
    if (this.closed) return;
    this.setState('starting');
    const failure = await this.launch();
    if (failure !== undefined && !this.closed) this.fail(failure);
  }

  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    const attempt = this.attempt;
    this.attempt = undefined;
    await attempt?.transport.close();
    if (this.currentState !== 'stopped') this.setState('stopped');
  }

  async callTool(tool: string, args: Record<string, unknown>, options: CallOptions, definition?: Tool): Promise<CallToolResult> {
    const attempt = this.attempt;
    if (this.currentState !== 'ready' || !attempt?.ready) throw this.unavailable();
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs(definition);
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new AppError('TOOL_BAD_TIMEOUT', `a call timeout must be a positive number of ms, not ${timeoutMs}`);
    }
    try {
      return await callToolWithDeadline(attempt.client, { server: this.spec.name, tool, args, timeoutMs, signal: options.signal, meta: options.meta });
    } catch (error) {
      throw isAppError(error, 'TOOL_UNAVAILABLE') ? this.stoppedDuringCall(attempt, tool, error) : error;
    }
  }

  /** A call whose server went away under it: how the process ended, and what happens next. */
  private stoppedDuringCall(attempt: Attempt, tool: string, cause: AppError): AppError {
    const how = attempt.transport.exit ? describeExit(attempt.transport.exit) : 'closed the connection';
    const next =
      this.currentState === 'failed' ? 'it is not restarted again' : this.currentState === 'stopped' ? 'the assistant is stopping' : 'it is being restarted; try again shortly';
    return new AppError('TOOL_UNAVAILABLE', `server ${this.spec.name} stopped during a call of ${tool}: it ${how}; ${next}`, {
      cause,
      retryable: this.currentState !== 'failed' && this.currentState !== 'stopped',
    });
  }

  /** Spawns, initializes and lists; answers why it failed, or undefined when ready. */
  private async launch(): Promise<string | undefined> {
    const { spec, options } = this;
    const transport = new ProcessTransport({
      command: spec.command,
      args: spec.args,
      env: { ...(spec.inheritEnv === 'allow-list' ? allowListedEnv(options.env) : options.env), ...spec.env },
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      stop: options.stop,
      onStderr: (text) => this.tail.push(text),
    });
    const client = new Client(options.clientInfo, { capabilities: {} });
    const attempt: Attempt = { client, transport, ready: false, readyAtMs: 0, listDirty: false, relistAgain: false };
    this.attempt = attempt;
    client.onerror = (error) => options.onProtocolError(this, error);
    client.onclose = () => this.disconnected(attempt);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.listChanged(attempt));
    // Only the project's own servers report progress; anyone else's log messages are not read.
    if (spec.builtin) {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        const progress = notification.params.logger === LOGGER_PROGRESS ? readProgress(notification.params.data) : undefined;
        if (progress) options.onProgress?.(this, progress);
      });
    }

    let timedOut = false;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('start timeout'));
      // terminate() never rejects; the start fails with the timeout below.
      void transport.terminate();
    }, options.startTimeoutMs);
    try {
      // The SDK's own request timer only backs ours up, which says what went wrong.
      await client.connect(transport, { signal: controller.signal, timeout: options.startTimeoutMs + 1000 });
      const { tools, duplicates } = await listAllTools(client, { signal: controller.signal });
      if (duplicates.length > 0) options.onProtocolError(this, new Error(`tools listed twice, first kept: ${duplicates.join(', ')}`));
      if (this.attempt !== attempt) return 'stopped while starting';
      attempt.ready = true;
      attempt.readyAtMs = options.clock();
      this.toolList = tools;
      this.error = undefined;
      this.setState('ready', `${tools.length} tools`);
      options.onTools(this);
      // relist() never rejects: a failure goes to onProtocolError.
      if (attempt.listDirty) void this.relist(attempt);
      return undefined;
    } catch (error) {
      // Stopped for good, and its stderr drained, before the tail is read.
      await transport.terminate();
      if (this.attempt === attempt) this.attempt = undefined;
      if (timedOut) return `did not initialize within ${options.startTimeoutMs} ms`;
      if (isAppError(error, PROCESS_SPAWN_FAILED)) return error.message;
      if (transport.exit) return `${describeExit(transport.exit)} before it was ready`;
      return `initialization failed: ${messageOf(error)}`;
    } finally {
      clearTimeout(timer);
    }
  }

  private disconnected(attempt: Attempt): void {
    // A failed start is reported by launch(), a stop by stop().
    if (attempt !== this.attempt || !attempt.ready || this.closed) return;
    this.attempt = undefined;
    if (this.options.clock() - attempt.readyAtMs >= this.options.restart.stableAfterMs) this.failures = 0;
    this.failed(attempt.transport.exit ? describeExit(attempt.transport.exit) : 'closed the connection');
  }

  /** One more consecutive failure: restart after the backoff, or give up. */
  private failed(why: string): void {
    this.failures += 1;
    const { restart } = this.options;
    if (this.failures >= restart.maxConsecutiveFailures) {
      this.fail(`${why}; gave up after ${this.failures} consecutive failures`);
      return;
    }
    const delayMs = restartDelayMs(this.failures, restart);
    this.error = why;
    this.setState('restarting', `${why}; restarting in ${delayMs} ms`);
    this.restartTimer = setTimeout(() => void this.restart(), delayMs);
    this.restartTimer.unref();
  }

  private async restart(): Promise<void> {
    this.restartTimer = undefined;
    if (this.closed) return;
    this.restarts += 1;
    const failure = await this.launch();
    if (failure !== undefined && !this.closed) this.failed(failure);
  }

  private fail(why: string): void {
    const tail = this.tail.lines();
    this.error = tail.length === 0 ? why : `${why}\nstderr:\n${tail.join('\n')}`;
    this.setState('failed', why);
  }

  private listChanged(attempt: Attempt): void {
    if (attempt !== this.attempt) return;
    if (!attempt.ready) attempt.listDirty = true;
    // relist() never rejects: a failure goes to onProtocolError.
    else void this.relist(attempt);
  }

  /** Re-lists; list_changed while a re-list runs makes one more after it. */
  private relist(attempt: Attempt): Promise<void> {
    if (attempt.relisting) {
      attempt.relistAgain = true;
      return attempt.relisting;
    }
    attempt.relisting = (async () => {
      do {
        attempt.relistAgain = false;
        try {
          // A timeout, not AbortSignal.timeout(): the SDK never removes its abort
          // listener, and a signal firing after the answer would send
          // notifications/cancelled for a request already done.
          const { tools } = await listAllTools(attempt.client, { timeout: this.options.startTimeoutMs });
          if (attempt !== this.attempt) return;
          this.toolList = tools;
          this.options.onTools(this);
        } catch (error) {
          this.options.onProtocolError(this, error);
          return;
        }
      } while (attempt.relistAgain && attempt === this.attempt);
    })().finally(() => {
      attempt.relisting = undefined;
    });
    return attempt.relisting;
  }

  private unavailable(): AppError {
    const name = this.spec.name;
    switch (this.currentState) {
      case 'failed':
        return new AppError('TOOL_UNAVAILABLE', `server ${name} is unavailable: it failed (${firstLine(this.error)})`);
      case 'stopped':
        return new AppError('TOOL_UNAVAILABLE', `server ${name} is stopped`);
      default:
        return new AppError('TOOL_UNAVAILABLE', `server ${name} is temporarily unavailable (${this.currentState}); try again shortly`, {
          retryable: true,
        });
    }
  }

  private defaultTimeoutMs(definition: Tool | undefined): number {
    const declared = definition?._meta?.[META_TIMEOUT_MS];
    if (this.spec.builtin && typeof declared === 'number' && declared > 0) return declared + BUILTIN_TIMEOUT_MARGIN_MS;
    return this.spec.callTimeoutMs;
  }

  private setState(state: ServerState, detail?: string): void {
    this.currentState = state;
    this.options.onState(this, state, detail);
  }
}

function describeExit(exit: ProcessExit): string {
  if (exit.signal !== null) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code ?? '?'}`;
}

function firstLine(text: string | undefined): string {
  return (text ?? 'unknown reason').split('\n')[0] ?? '';
}

/** For display and pinning: the argv, each element quoted only when it needs it. */
export function commandLine(spec: Pick<ServerSpec, 'command' | 'args'>): string {
  return [spec.command, ...spec.args].map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The data of a progress message, when it has the expected shape. */
function readProgress(data: unknown): ServerProgress | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { task, done, total, ratePerS, remainingS } = data as Record<string, unknown>;
  const count = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (typeof task !== 'string' || task.length > 40 || !count(done) || !count(total) || !count(ratePerS)) return undefined;
  if (remainingS !== null && !count(remainingS)) return undefined;
  return { task, done, total, ratePerS, remainingS };
}
