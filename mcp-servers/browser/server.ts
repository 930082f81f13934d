import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { AppError, isAppError, messageOf } from '../../src/errors/index.js';
import { logEvent } from '../../src/log/index.js';
import { PACKAGE_VERSION } from '../../src/package-root.js';
import { extract, readPage, type CallContext } from './calls.js';
import { ChromiumLauncher } from './chromium.js';
import { errorResult, textResult } from './format.js';
import { FreshPages } from './fresh-pages.js';
import type { BrowserSettings } from './settings.js';
import { browserTools, EXTRACT, extractArgs, READ_PAGE, readPageArgs } from './tools.js';

export interface BrowserServer {
  server: Server;
  /** Closes Chromium, if it was started. */
  close(): Promise<void>;
}

type Handler = (args: unknown, context: CallContext) => Promise<string>;

const HANDLERS: Record<string, Handler> = {
  [READ_PAGE]: (args, context) => readPage(readPageArgs(args), context),
  [EXTRACT]: (args, context) => extract(extractArgs(args), context),
};

/**
 * The browser.playwright adapter: read-only page tools over Debian's
 * Chromium. Chromium starts on the first call; without it every call
 * answers BROWSER_UNAVAILABLE and the server stays up, listing its tools.
 */
export function createBrowserServer(settings: BrowserSettings): BrowserServer {
  const launcher = new ChromiumLauncher(settings.chromiumPath);
  const pages = new FreshPages(launcher);
  const tools = browserTools(settings);
  const server = new Server({ name: 'desktop-assistant-browser', version: PACKAGE_VERSION }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  // tools/call goes through the fallback handler on purpose: the SDK's own
  // tools/call validation answers bad params with a protocol error, and this
  // server promises an error *result*, with a code, for every bad call.
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    const name = String(params.name);
    const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
    if (!handler) return errorResult(new AppError('BROWSER_UNKNOWN_TOOL', `no tool named ${name}`));
    const startedAt = performance.now();
    try {
      return textResult(await handler(params.arguments ?? {}, { pages, settings, signal: extra.signal }));
    } catch (error) {
      const failure = isAppError(error) ? error : new AppError('BROWSER_FAILED', messageOf(error), { cause: error });
      logEvent('warn', 'browser_call_failed', { tool: name, code: failure.code, error: failure.message, ms: Math.round(performance.now() - startedAt) });
      return errorResult(failure);
    }
  };

  return {
    server,
    close: async () => {
      await pages.close();
      await launcher.close();
    },
  };
}
