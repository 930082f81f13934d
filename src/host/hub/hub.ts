import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, messageOf } from '../../errors/index.js';
import { clip, type AssistantBus } from '../../events/index.js';
import { logEvent, type LogSink } from '../../log/index.js';
import { PACKAGE_VERSION } from '../../package-root.js';
import { assignToolNames } from './naming.js';
import { DEFAULT_STOP_TIMINGS, type StopTimings } from './process-transport.js';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from './restart-policy.js';
import { ServerSupervisor, type ServerProgress } from './server-supervisor.js';
import type { CallOptions, HubTool, ServerSpec, ServerState, ServerStatus, ToolHub } from './types.js';

export interface McpHubOptions {
  bus?: AssistantBus;
  /** For event timestamps and uptimes (ms since the epoch). */
  clock?: () => number;
  /** Spawn, initialize and the first tools/list must fit in this; default 10 s. */
  startTimeoutMs?: number;
  restart?: Partial<RestartPolicy>;
  stop?: Partial<StopTimings>;
  /** stderr lines kept per server; default 50. */
  stderrLines?: number;
  /** The environment each server's `env` is added to; default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Where state changes and protocol noise are logged; default nowhere (the bus has the states). */
  log?: LogSink;
}

interface Entry {
  tool: HubTool;
  supervisor: ServerSupervisor;
}

/**
 * The MCP hub: starts every server in parallel, supervises them, names
 * their tools (see naming.ts) and routes calls by exposed name.
 */
export class McpHub implements ToolHub {
  private readonly supervisors: ServerSupervisor[];
  private readonly bus?: AssistantBus;
  private readonly clock: () => number;
  private readonly log?: LogSink;
  private entries = new Map<string, Entry>();
  private signature = '';
  private readonly listeners = new Set<() => void>();
  private starting?: Promise<void>;
  private closing?: Promise<void>;

  constructor(specs: readonly ServerSpec[], options: McpHubOptions = {}) {
    const names = new Set<string>();
    for (const spec of specs) {
      if (names.has(spec.name)) throw new AppError('HUB_DUPLICATE_SERVER', `two MCP servers are named ${spec.name}`);
      names.add(spec.name);
    }
    this.bus = options.bus;
    this.clock = options.clock ?? Date.now;
    this.log = options.log;
    const supervisorOptions = {
      clock: this.clock,
      startTimeoutMs: options.startTimeoutMs ?? 10_000,
      restart: { ...DEFAULT_RESTART_POLICY, ...options.restart },
      stop: { ...DEFAULT_STOP_TIMINGS, ...options.stop },
      stderrLines: options.stderrLines ?? 50,
      env: options.env ?? process.env,
      clientInfo: { name: 'desktop-assistant', version: PACKAGE_VERSION },
      onState: (server: ServerSupervisor, state: ServerState, detail?: string) => this.stateChanged(server, state, detail),
      onTools: () => this.refresh(),
      onProtocolError: (server: ServerSupervisor, error: unknown) => this.logLine('debug', 'hub.protocol_error', { server: server.spec.name, error: messageOf(error) }),
      onProgress: (server: ServerSupervisor, progress: ServerProgress) => this.bus?.emit({ type: 'progress', stage: 'hub', atMs: this.clock(), server: server.spec.name, ...progress }),
    };
    this.supervisors = [...specs].sort((a, b) => (a.name < b.name ? -1 : 1)).map((spec) => new ServerSupervisor(spec, supervisorOptions));
  }

  /** Starts every server at once; resolves when each is ready or failed. Never rejects for a server. */
  start(): Promise<void> {
    if (this.closing) return Promise.reject(new AppError('HUB_CLOSED', 'the MCP hub is closed'));
    this.starting ??= Promise.all(this.supervisors.map((s) => s.start())).then(() => undefined);
    return this.starting;
  }

  /** Stops every server (stdin closed, then SIGTERM, then SIGKILL); nothing restarts after. */
  close(): Promise<void> {
    this.closing ??= Promise.all(this.supervisors.map((s) => s.stop())).then(() => undefined);
    return this.closing;
  }

  tools(): HubTool[] {
    return [...this.entries.values()].map((entry) => ({ ...entry.tool }));
  }

  servers(): ServerStatus[] {
    return this.supervisors.map((s) => s.status());
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const entry = this.entries.get(name);
    if (!entry) throw new AppError('TOOL_UNKNOWN', `no tool named ${name}`);
    return entry.supervisor.callTool(entry.tool.serverToolName, args, options, entry.tool.definition);
  }

  onToolsChanged(listener: () => void): () => void {
    // A wrapper, so the same function added twice is two subscriptions.
    const entry = (): void => listener();
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  private stateChanged(server: ServerSupervisor, state: ServerState, detail?: string): void {
    const name = server.spec.name;
    this.logLine(state === 'failed' ? 'error' : state === 'restarting' ? 'warn' : 'info', 'hub.server_state', { server: name, state, detail });
    this.bus?.emit({ type: 'server.state', stage: 'hub', atMs: this.clock(), server: name, state, ...(detail === undefined ? {} : { detail: clip(detail) }) });
    this.refresh();
  }

  /**
   * Renames everything from the current set of tools and tells listeners
   * when the list, a definition or a server's availability changed.
   */
  private refresh(): void {
    const definitions = new Map(this.supervisors.flatMap((s) => s.tools.map((tool) => [`${s.spec.name}\0${tool.name}`, { s, tool }] as const)));
    const refs = this.supervisors.flatMap((s) => s.tools.map((tool) => ({ server: s.spec.name, tool: tool.name })));
    const entries = new Map<string, Entry>();
    for (const { server, tool, name } of assignToolNames(refs)) {
      const found = definitions.get(`${server}\0${tool}`);
      if (!found) continue;
      entries.set(name, { supervisor: found.s, tool: { name, server, serverToolName: tool, definition: found.tool } });
    }
    const signature = JSON.stringify([
      [...entries.values()].map((e) => e.tool),
      this.supervisors.map((s) => s.state === 'ready'),
    ]);
    if (signature === this.signature) return;
    this.signature = signature;
    this.entries = entries;
    this.bus?.emit({ type: 'tools.changed', stage: 'hub', atMs: this.clock(), count: entries.size });
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.logLine('error', 'hub.listener_failed', { error: messageOf(error) });
      }
    }
  }

  private logLine(level: 'debug' | 'info' | 'warn' | 'error', event: string, fields: Record<string, unknown>): void {
    if (this.log) logEvent(level, event, fields, this.log);
  }
}
