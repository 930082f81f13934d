import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { expandHome, type Config } from '../../src/config/index.js';
import { messageOf, type AppError } from '../../src/errors/index.js';
import { logEvent, type LogSink } from '../../src/log/index.js';
import { PACKAGE_VERSION } from '../../src/package-root.js';
import { planCommand } from './command-policy.js';
import { errorText, shellError, isShellError } from './errors.js';
import { parseInput } from './input.js';
import { PathGuard } from './path-guard.js';
import { runPlan, type RunLimits } from './runner.js';
import { shellTool, TOOL_NAME } from './tool.js';

export interface ShellReadonlySettings extends RunLimits {
  /** As configured; `~/` means home. Those that do not exist are left out with a warning. */
  allowedDirs: readonly string[];
}

/** `[adapters.shell_readonly]`, with seconds turned into milliseconds at this edge. */
export function settingsFromConfig(config: Config): ShellReadonlySettings {
  const section = config.adapters.shell_readonly;
  return {
    allowedDirs: section.allowed_dirs.map(expandHome),
    timeoutMs: section.timeout.ms,
    maxOutputChars: section.max_output_chars,
  };
}

/**
 * The stdio MCP server of the `shell.readonly` tool. Every bad call, from
 * malformed arguments to a refused option, is an error *result* with a
 * stable code, so the model can read why and try another way.
 */
export async function createShellReadonlyServer(settings: ShellReadonlySettings, log: LogSink = process.stderr): Promise<Server> {
  const { guard, missing } = await PathGuard.create(settings.allowedDirs);
  for (const dir of missing) logEvent('warn', 'shell_readonly_dir_missing', { dir }, log);
  const tool = shellTool(guard.roots, settings);

  const server = new Server({ name: 'desktop-assistant-shell-readonly', version: PACKAGE_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool] }));

  // tools/call goes through the fallback handler on purpose: the SDK's own
  // validation answers a non-object `arguments` with a protocol error, and
  // this server promises an error result for every bad call.
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    if (params.name !== TOOL_NAME) {
      return errorResult(shellError('SHELL_ARGUMENTS_INVALID', `no tool named ${JSON.stringify(params.name)}; this server has ${TOOL_NAME}`));
    }
    return callShellReadonly(params.arguments, guard, settings, { signal: extra.signal, log });
  };
  return server;
}

/** One call, start to end: input checks, policy, run. */
export async function callShellReadonly(
  args: unknown,
  guard: PathGuard,
  limits: RunLimits,
  options: { signal?: AbortSignal; log?: LogSink } = {},
): Promise<CallToolResult> {
  try {
    const input = parseInput(args);
    const plan = await planCommand(input, guard);
    const text = await runPlan(plan, guard, limits, options.signal);
    return { content: [{ type: 'text', text }] };
  } catch (caught) {
    // Anything unforeseen is still an answer, not a protocol error.
    const error = isShellError(caught) ? caught : shellError('SHELL_FAILED', messageOf(caught));
    if (error.code === 'SHELL_COMMAND_REFUSED' || error.code === 'SHELL_PATH_OUTSIDE') {
      logEvent('warn', 'shell_readonly_refused', { code: error.code, reason: error.message, argv: (args as { argv?: unknown } | undefined)?.argv }, options.log);
    }
    return errorResult(error);
  }
}

function errorResult(error: AppError): CallToolResult {
  return { content: [{ type: 'text', text: errorText(error) }], isError: true };
}
