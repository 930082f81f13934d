import { configDir as resolveConfigDir, dataDir as resolveDataDir, loadConfig, voiceLanguages, type Config } from '../config/index.js';
import { createAssistantBus, type AssistantBus } from '../events/index.js';
import { memoryEnabled } from '../memory/index.js';
import { Conversation, hubMemoryRecall } from './conversation/index.js';
import { builtinAdapterSpecs, builtinMemorySpecs, builtinToolsServerSpec, McpHub, thirdPartyServerSpecs, type McpHubOptions } from './hub/index.js';
import { OpenAiLlm, type Llm } from './llm/index.js';
import { ToolRouter } from './router/index.js';
import { openStateDb, SqliteAuditLog, SqlitePinStore, type AuditLog, type StateDb } from './store/index.js';

export interface HostOptions {
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  bus?: AssistantBus;
  clock?: () => number;
  hub?: Omit<McpHubOptions, 'bus' | 'clock'>;
  /** Replaces the OpenAI-compatible client (tests, other engines). */
  llm?: Llm;
}

/** The assembled host: config, the MCP hub with its servers, the router, the LLM. */
export interface Host {
  config: Config;
  configDir: string;
  dataDir: string;
  bus: AssistantBus;
  hub: McpHub;
  router: ToolRouter;
  llm: Llm;
  state: StateDb;
  /** The router's audit log, for readers (the HTTP API, the audit command). */
  audit: AuditLog;
  newConversation(): Conversation;
  close(): Promise<void>;
}

/** Connecting and receiving the headers; a local server answers in milliseconds. */
const LLM_REQUEST_TIMEOUT_MS = 30_000;
/** A local model may read a long prompt before its first token. */
const LLM_FIRST_TOKEN_TIMEOUT_MS = 120_000;
const LLM_IDLE_TIMEOUT_MS = 60_000;

/** Whether tools may run: `[router] enabled`, unless OWNER_TOOL_ROUTER_ENABLED=0 turns them off. */
export function routerEnabled(config: Config, env: NodeJS.ProcessEnv): boolean {
  return config.router.enabled && env.OWNER_TOOL_ROUTER_ENABLED !== '0';
}

/**
 * Reads the config, opens the state database, starts every MCP server in
 * parallel and waits until each is ready or failed (a failed one does not
 * stop the others).
 */
export async function startHost(options: HostOptions = {}): Promise<Host> {
  const env = options.env ?? process.env;
  const configDir = resolveConfigDir(options.configDir, env);
  const dataDir = resolveDataDir(env);
  const config = await loadConfig(configDir);
  const bus = options.bus ?? createAssistantBus();
  const clock = options.clock ?? Date.now;
  const state = openStateDb(dataDir);
  const specs = [
    builtinToolsServerSpec(configDir),
    ...builtinMemorySpecs(config, configDir, env),
    ...builtinAdapterSpecs(config.adapters, configDir, env),
    ...thirdPartyServerSpecs(config.mcp),
  ];
  const hub = new McpHub(specs, { ...options.hub, env, bus, clock });
  const audit = new SqliteAuditLog(state);
  const router = new ToolRouter({
    hub,
    config,
    audit,
    pins: new SqlitePinStore(state),
    bus,
    clock,
    enabled: routerEnabled(config, env),
  });
  const llm =
    options.llm ??
    new OpenAiLlm({
      baseUrl: config.llm,
      model: config.model,
      requestTimeoutMs: LLM_REQUEST_TIMEOUT_MS,
      firstTokenTimeoutMs: LLM_FIRST_TOKEN_TIMEOUT_MS,
      idleTimeoutMs: LLM_IDLE_TIMEOUT_MS,
      maxReplyTokens: config.max_reply_tokens,
      maxReplyMs: config.max_reply_seconds.ms,
    });
  const recall = memoryEnabled(config, env) ? hubMemoryRecall(hub, config.memory) : undefined;
  // While the servers start, not in the first turn; closing the host stops it (a server that never answers must not keep the process alive).
  const warmUp = new AbortController();
  // A warm-up is a hint: a server that does not answer is found and reported by the first turn.
  void llm.warmUp?.({ signal: warmUp.signal }).catch(() => undefined);
  try {
    await hub.start();
  } catch (error) {
    warmUp.abort();
    await hub.close();
    state.close();
    throw error;
  }
  // The catalog the first turn offers (pins checked, policies applied), built now rather than in that turn.
  try {
    router.catalog();
  } catch {
    // The first turn builds it again and reports what fails.
  }
  return {
    config,
    configDir,
    dataDir,
    bus,
    hub,
    router,
    llm,
    state,
    audit,
    newConversation: () =>
      new Conversation({
        llm,
        router,
        bus,
        clock,
        systemPrompt: config.system,
        toolRounds: config.tool_rounds,
        languages: Object.keys(voiceLanguages(config)),
        ...(recall ? { recall } : {}),
      }),
    close: async () => {
      warmUp.abort();
      await hub.close();
      state.close();
    },
  };
}
