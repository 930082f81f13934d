import { DEFAULT_SERVER_TIMEOUT, type Config, type Duration } from '../../config/index.js';
import type { Decision, Risk } from '../../events/index.js';
import type { HubTool, ServerStatus } from '../hub/index.js';
import { META_ALLOW_UNLESS_SENSITIVE, META_ANNOUNCE, META_RISK, META_SENSITIVE_ARGUMENT, META_TIMEOUT_MS } from '../../tool-meta/index.js';
import type { PinGuard } from './pin-guard.js';
import { guiControlReason } from './computer-control.js';
import { policyDecision } from './policy.js';
import { isRisk, resolveRisk, type RiskSource } from './risk.js';

/** Beyond a tool file's own timeout: the tools server kills it and answers first. */
const TOOL_FILE_GRACE_MS = 5000;

/** A tool with everything the router decided about it. */
export interface RoutedTool {
  name: string;
  server: string;
  serverToolName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  risk: Risk;
  riskSource: RiskSource;
  /** One of the project's own servers: trusted with `_meta` both ways. */
  builtin: boolean;
  /** The policy's answer before anyone is asked. */
  decision: Decision;
  /** Its definition changed since it was approved: not offered, calls refused. */
  quarantined: boolean;
  changes: string[];
  /** Why it cannot be used at all in this version (GUI control), if so: never offered, calls refused. */
  unsupported?: string;
  /** Its server is ready (a restarting server's tools answer "temporarily unavailable"). */
  available: boolean;
  announce: Record<string, string[]>;
  /** The argument checked for sensitive content before a call (a built-in server's declaration). */
  sensitiveArgument?: string;
  timeoutMs: number;
  hubTool: HubTool;
}

export function buildCatalog(tools: HubTool[], servers: ServerStatus[], config: Config, pins: PinGuard): RoutedTool[] {
  const byName = new Map(servers.map((s) => [s.name, s]));
  return tools.map((tool) => {
    const server = byName.get(tool.server);
    const builtin = server?.builtin ?? false;
    const trusted = server?.trusted ?? false;
    const meta = (tool.definition._meta ?? {}) as Record<string, unknown>;
    const override = config.mcp[tool.server]?.risk[tool.serverToolName];
    const { risk, source } = resolveRisk({
      annotations: tool.definition.annotations,
      declared: meta[META_RISK],
      override: isRisk(override) ? override : undefined,
      trusted,
      builtin,
    });
    const pin = pins.check(tool.server, builtin, tool.definition, server?.commandLine ?? '');
    return {
      name: tool.name,
      server: tool.server,
      serverToolName: tool.serverToolName,
      description: tool.definition.description ?? '',
      inputSchema: tool.definition.inputSchema as Record<string, unknown>,
      risk,
      riskSource: source,
      builtin,
      decision: policyDecision(tool.name, risk, config.router, builtin && meta[META_ALLOW_UNLESS_SENSITIVE] === true),
      quarantined: pin.state === 'changed',
      unsupported: guiControlReason(tool.serverToolName),
      changes: pin.state === 'changed' ? pin.changes : [],
      available: server?.state === 'ready',
      announce: builtin ? announcementsOf(meta[META_ANNOUNCE]) : {},
      ...(builtin && typeof meta[META_SENSITIVE_ARGUMENT] === 'string' ? { sensitiveArgument: meta[META_SENSITIVE_ARGUMENT] } : {}),
      timeoutMs: callTimeoutMs(meta, builtin, config.mcp[tool.server]?.timeout),
      hubTool: tool,
    };
  });
}

function announcementsOf(value: unknown): Record<string, string[]> {
  if (typeof value !== 'object' || value === null) return {};
  const out: Record<string, string[]> = {};
  for (const [lang, phrases] of Object.entries(value)) {
    if (Array.isArray(phrases)) out[lang] = phrases.filter((p): p is string => typeof p === 'string' && p.length > 0);
  }
  return out;
}

function callTimeoutMs(meta: Record<string, unknown>, builtin: boolean, configured: Duration | undefined): number {
  const declared = meta[META_TIMEOUT_MS];
  if (builtin && typeof declared === 'number' && declared > 0) return declared + TOOL_FILE_GRACE_MS;
  // The built-in servers have no [mcp.<name>] table: the table's default.
  return (configured ?? DEFAULT_SERVER_TIMEOUT).ms;
}
