import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { AppError, isAppError, messageOf } from '../../src/errors/index.js';
import { logEvent, type LogSink } from '../../src/log/index.js';
import type { MemoryStore } from '../../src/memory/index.js';
import { PACKAGE_VERSION } from '../../src/package-root.js';
import { META_TURN_ID, META_USER_CONFIRMED_SENSITIVE } from '../../src/tool-meta/index.js';
import { errorResult, memoriesResult, textResult, view } from './format.js';
import { FORGET, forgetArgs, LIST, listArgs, MEMORY_TOOLS, SAVE, saveArgs, SEARCH, searchArgs } from './tools.js';

interface CallContext {
  store: MemoryStore;
  meta: Record<string, unknown>;
  signal: AbortSignal;
}

type Handler = (args: unknown, context: CallContext) => Promise<CallToolResult>;

const HANDLERS: Record<string, Handler> = {
  [SEARCH]: async (args, { store, signal }) => {
    const request = searchArgs(args);
    return memoriesResult(await store.search(request, { signal }), store.problems(), 'No memory matches.');
  },
  [SAVE]: async (args, { store, meta, signal }) => {
    const { text, kind } = saveArgs(args);
    const saved = await store.save(
      {
        text,
        kind,
        ...(typeof meta[META_TURN_ID] === 'string' ? { sourceTurn: meta[META_TURN_ID] } : {}),
        // Only the router sets this, after the user said yes; the model's arguments cannot.
        userConfirmedSensitive: meta[META_USER_CONFIRMED_SENSITIVE] === true,
      },
      { signal },
    );
    return textResult(`Saved as memory #${saved.id}.`, { memory: view(saved) });
  },
  [FORGET]: async (args, { store }) => {
    const { id } = forgetArgs(args);
    if (!store.forget(id)) throw new AppError('MEMORY_NOT_FOUND', `there is no memory #${id}`);
    return textResult(`Forgot memory #${id}.`, { forgotten: id });
  },
  [LIST]: async (args, { store }) => {
    const request = listArgs(args);
    return memoriesResult(store.list(request), store.problems(), 'No memories saved yet.');
  },
};

/**
 * The memory server: memory.search, memory.save, memory.forget and
 * memory.list over one MemoryStore, opened by `openStore` once the tools
 * are listed (or at the first call): opening checks every record and may
 * rebuild a large index for minutes, which must not keep the server from
 * answering `initialize` and `tools/list` in time. Calls wait for it. Every
 * bad call is an error result with a code; a sensitive save without the
 * router's word that the user confirmed it is refused
 * (MEMORY_SENSITIVE_UNCONFIRMED).
 */
export function createMemoryServer(openStore: () => Promise<MemoryStore>, log: LogSink = process.stderr): Server {
  let opening: Promise<MemoryStore> | undefined;
  const ready = (): Promise<MemoryStore> => {
    if (!opening) {
      // After this turn of the event loop: the tools/list answer goes out first.
      const attempt = new Promise<void>((resolve) => setImmediate(resolve)).then(openStore);
      opening = attempt;
      // A store that could not be opened (busy, damaged) is tried again at the next call.
      attempt.catch(() => {
        if (opening === attempt) opening = undefined;
      });
    }
    return opening;
  };
  const server = new Server({ name: 'desktop-assistant-memory', version: PACKAGE_VERSION }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => {
    // Opens the store early; a failure is handled in ready() and met again by the first call.
    void ready();
    return { tools: MEMORY_TOOLS };
  });
  // The fallback handler, as in the other built-in servers: bad params are an error result, not a protocol error.
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown; _meta?: unknown };
    const name = String(params.name);
    const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
    if (!handler) return errorResult(new AppError('MEMORY_UNKNOWN_TOOL', `no tool named ${name}; this server has ${Object.keys(HANDLERS).join(', ')}`));
    const meta = typeof params._meta === 'object' && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
    try {
      const store = await ready().catch((error: unknown) => {
        throw new AppError('MEMORY_UNAVAILABLE', `the memory store could not be opened: ${messageOf(error)}`, { cause: error });
      });
      return await handler(params.arguments, { store, meta, signal: extra.signal });
    } catch (error) {
      const failure = isAppError(error) ? error : new AppError('MEMORY_FAILED', messageOf(error), { cause: error });
      // The code only: the arguments may hold what the user wanted kept private.
      logEvent('warn', 'memory_call_failed', { tool: name, code: failure.code }, log);
      return errorResult(failure);
    }
  };
  return server;
}
