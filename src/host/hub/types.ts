import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';

/** How to start one stdio MCP server. */
export interface ServerSpec {
  /** Unique server name: `tools` for the tool files, the `[mcp.<name>]` key for third-party ones. */
  name: string;
  command: string;
  args: string[];
  /** Added to the hub's own environment (all of it, or its allow-listed part: see `inheritEnv`). */
  env?: Record<string, string>;
  /**
   * `all` for the project's own servers; `allow-list` for third-party ones,
   * which get only what a program needs to run (PATH, HOME, locale, ...),
   * never the user's API keys and tokens unless `env` names them.
   */
  inheritEnv?: 'all' | 'allow-list';
  cwd?: string;
  /** Built-in servers and `[mcp.x] trusted = true` ones. */
  trusted: boolean;
  /** One of this project's own servers (tools, memory, ...). */
  builtin: boolean;
  /** Default time a call may take, in ms. */
  callTimeoutMs: number;
}

export type ServerState = 'starting' | 'ready' | 'restarting' | 'failed' | 'stopped';

export interface ServerStatus {
  name: string;
  state: ServerState;
  trusted: boolean;
  builtin: boolean;
  /** The command line, for pinning and display. */
  commandLine: string;
  restarts: number;
  /** The last lines the server wrote to stderr, for diagnosis. */
  stderrTail: string[];
  /** Why it is failed or restarting, when it is. */
  error?: string;
  toolCount: number;
  /** The server process while one runs (the leader of its process group). */
  pid?: number;
}

/** A tool as the hub offers it: a unique exposed name legal for OpenAI function names. */
export interface HubTool {
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique across servers, stable for the same set of tools. */
  name: string;
  server: string;
  /** The tool's name on its server. */
  serverToolName: string;
  /** The definition exactly as the server listed it. */
  definition: Tool;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the server's default call timeout. */
  timeoutMs?: number;
  /** Sent as the request's `_meta`: what the router tells a built-in server (a confirmation it obtained). */
  meta?: Record<string, unknown>;
}

/**
 * The hub as the router sees it. `callTool` throws AppError with code
 * TOOL_UNKNOWN, TOOL_UNAVAILABLE (server restarting or failed), TOOL_TIMEOUT
 * or TOOL_CANCELLED; a late answer after a timeout or cancellation is ignored.
 */
export interface ToolHub {
  tools(): HubTool[];
  servers(): ServerStatus[];
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  /** Called after the tool list changed (a server's list_changed, a restart, a failure). */
  onToolsChanged(listener: () => void): () => void;
}
