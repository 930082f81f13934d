import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../src/errors/index.js';
import type { CallOptions, HubTool, ServerStatus, ToolHub } from '../../src/host/hub/index.js';

export type FakeToolHandler = (args: Record<string, unknown>, options: CallOptions) => Promise<CallToolResult> | CallToolResult;

export interface FakeServer {
  name: string;
  trusted: boolean;
  builtin: boolean;
  state?: ServerStatus['state'];
  commandLine?: string;
}

/**
 * An in-memory hub for router and conversation tests: tools with their
 * definitions and handlers, servers with trust and state. Records calls.
 */
export class FakeHub implements ToolHub {
  readonly calls: { name: string; args: Record<string, unknown>; options: CallOptions }[] = [];
  private readonly entries = new Map<string, { tool: HubTool; handler: FakeToolHandler }>();
  private readonly serverList = new Map<string, FakeServer>();
  private readonly listeners = new Set<() => void>();

  addServer(server: FakeServer): this {
    this.serverList.set(server.name, server);
    return this;
  }

  addTool(server: string, definition: Tool, handler: FakeToolHandler = () => textResult('ok')): this {
    this.entries.set(definition.name, { tool: { name: definition.name, server, serverToolName: definition.name, definition }, handler });
    this.changed();
    return this;
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  tools(): HubTool[] {
    return [...this.entries.values()].map((e) => e.tool).sort((a, b) => a.name.localeCompare(b.name));
  }

  servers(): ServerStatus[] {
    return [...this.serverList.values()].map((s) => ({
      name: s.name,
      state: s.state ?? 'ready',
      trusted: s.trusted,
      builtin: s.builtin,
      commandLine: s.commandLine ?? `fake-${s.name}`,
      restarts: 0,
      stderrTail: [],
      toolCount: this.tools().filter((t) => t.server === s.name).length,
    }));
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const entry = this.entries.get(name);
    if (!entry) throw new AppError('TOOL_UNKNOWN', `no tool named ${name}`);
    this.calls.push({ name, args, options });
    return entry.handler(args, options);
  }

  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], isError };
}
