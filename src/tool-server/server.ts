import { dirname, join, resolve } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../config/index.js';
import { messageOf } from '../errors/index.js';
import { logEvent } from '../log/index.js';
import { runToolFile, toMcpTool, toolFilesIn } from '../tool-files/index.js';
import { PACKAGE_VERSION } from '../package-root.js';
import { ToolCatalog } from './tool-catalog.js';
import { watchFolders } from './watch-folders.js';

export interface ToolsServerOptions {
  configDir: string;
  /** Serve just these files; by default every `tools/*.toml` of the config folder. */
  files?: readonly string[];
  /** Follow changes to the files (default true). */
  watch?: boolean;
}

export interface ToolsServer {
  server: Server;
  catalog: ToolCatalog;
  /** Re-reads the files now, as a change would; resolves when the list is current. */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The stdio MCP server of tool files: one MCP tool per `tools/<name>.toml`.
 * A bad config.toml stops it (CONFIG_INVALID); a bad tool file is reported
 * on stderr and left out, and the other tools are served.
 */
export async function createToolsServer(options: ToolsServerOptions): Promise<ToolsServer> {
  const config = await loadConfig(options.configDir);
  const toolEnv = Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, String(v)]));
  const toolsDir = join(options.configDir, 'tools');
  const explicit = options.files?.map((f) => resolve(f));
  const catalog = new ToolCatalog(async () => explicit ?? (await toolFilesIn(toolsDir)));

  const server = new Server(
    { name: 'desktop-assistant-tools', version: PACKAGE_VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.list().map(toMcpTool) }));

  // tools/call goes through the fallback handler on purpose: the SDK's own
  // tools/call validation answers a non-object `arguments` with a protocol
  // error, and this server promises an error *result* for every bad call.
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    const tool = typeof params.name === 'string' ? catalog.get(params.name) : undefined;
    if (!tool) return errorResult(`error: no tool named ${String(params.name)}`);
    const result = await runToolFile(tool, params.arguments, { env: toolEnv, signal: extra.signal });
    return { content: [{ type: 'text', text: result.text }], isError: result.isError };
  };

  const reload = async (): Promise<void> => {
    const update = await catalog.reload();
    for (const error of update.errors) logEvent('error', 'tool_file_invalid', { error });
    // Fails only with no client connected (the first load, or after it left): a client lists the tools when it connects.
    if (update.changed) await server.sendToolListChanged().catch(() => undefined);
  };

  await reload();
  const folders = explicit ? explicit.map((f) => dirname(f)) : [toolsDir];
  // A reload from the watcher has no caller to reject to: what goes wrong is logged, and the server keeps serving.
  const reloadQuietly = (): void => void reload().catch((error: unknown) => logEvent('error', 'tool_reload_failed', { error: messageOf(error) }));
  const stopWatching = options.watch === false ? () => undefined : watchFolders(folders, reloadQuietly);

  return {
    server,
    catalog,
    reload,
    close: async () => {
      stopWatching();
      await server.close();
    },
  };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
