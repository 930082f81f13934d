import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/index.js';
import { isAppError, messageOf } from '../../errors/index.js';
import { clip, type AssistantBus, type AssistantEvent, type DecidedBy, type Decision, type EntryPoint, type Risk, type ToolCallStatus, type UnstampedEvent } from '../../events/index.js';
import type { ToolHub } from '../hub/index.js';
import type { LogSink } from '../../log/index.js';
import { detectSensitive } from '../../memory/index.js';
import { META_TURN_ID, META_USER_CONFIRMED_SENSITIVE } from '../../tool-meta/index.js';
import { summarizeArguments, type AuditLog, type AuditRecord, type PinStore } from '../store/index.js';
import { AuditTrail } from './audit-trail.js';
import { TurnBudget } from './budget.js';
import { buildCatalog, type RoutedTool } from './catalog.js';
import { askWithTimeout, type ConfirmationChannel } from './confirmation.js';
import { handleOutput, resultToText } from './output.js';
import { PinGuard } from './pin-guard.js';
import { refusal } from './refusal.js';
import { ArgumentValidator } from './validation.js';

export interface RouterOptions {
  hub: ToolHub;
  config: Config;
  audit: AuditLog;
  pins: PinStore;
  bus: AssistantBus;
  clock?: () => number;
  /** False: no tool is offered or run (config `[router] enabled`, OWNER_TOOL_ROUTER_ENABLED=0). */
  enabled: boolean;
  /** Where audit failures are logged (stderr). */
  log?: LogSink;
}

export interface TurnContext {
  turnId: string;
  entry: EntryPoint;
  signal?: AbortSignal;
  confirmation: ConfirmationChannel;
  budget: TurnBudget;
}

export interface ToolCallRequest {
  /** The model's call id, when it gave one. */
  callId?: string;
  name: string;
  /** An object, or the model's arguments text (parsed here, so a malformed one is audited too). */
  arguments: unknown;
}

export interface RoutedResult {
  callId: string;
  text: string;
  isError: boolean;
  status: ToolCallStatus;
}

interface Verdict {
  risk: Risk;
  decision: Decision;
  decidedBy: DecidedBy;
}

/**
 * The one choke point for tool calls, from every way in. In order: lookup,
 * pinning, argument validation, risk policy, confirmation, per-turn budget,
 * audit (written before the run: a call that cannot be audited does not run,
 * AUDIT_UNWRITABLE), run, output handling, the audit's outcome, events.
 * Every refusal or failure is a result the model can read, never a throw.
 */
export class ToolRouter {
  private readonly validator = new ArgumentValidator();
  private readonly pins: PinGuard;
  private readonly clock: () => number;
  private readonly trail: AuditTrail;
  private cached: RoutedTool[] | undefined;

  constructor(private readonly options: RouterOptions) {
    this.clock = options.clock ?? Date.now;
    this.trail = new AuditTrail(
      options.audit,
      (message, turnId) => this.options.bus.emit({ type: 'error', stage: 'tool', code: 'AUDIT_UNWRITABLE', message, recoverable: true, atMs: this.clock(), turnId }),
      options.log,
    );
    this.pins = new PinGuard(options.pins, this.clock);
    options.hub.onToolsChanged(() => {
      this.cached = undefined;
    });
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Every tool the hub knows, with risk, policy, quarantine and availability. */
  catalog(): RoutedTool[] {
    this.cached ??= buildCatalog(this.options.hub.tools(), this.options.hub.servers(), this.options.config, this.pins);
    return this.cached;
  }

  /** What the model is offered: nothing when the router is off; never a quarantined, unsupported or denied tool. */
  offered(): RoutedTool[] {
    if (!this.enabled) return [];
    return this.catalog().filter((t) => !t.quarantined && !t.unsupported && t.decision !== 'deny');
  }

  newTurn(entry: EntryPoint, confirmation: ConfirmationChannel, signal?: AbortSignal, turnId: string = randomUUID()): TurnContext {
    return { turnId, entry, signal, confirmation, budget: new TurnBudget(this.options.config.router) };
  }

  /** Stores the current definition as approved; returns what changed since the last approval. */
  approve(name: string): { tool: RoutedTool; changes: string[] } | undefined {
    const tool = this.catalog().find((t) => t.name === name);
    if (!tool) return undefined;
    const server = this.options.hub.servers().find((s) => s.name === tool.server);
    this.pins.approve(tool.server, tool.hubTool.definition, server?.commandLine ?? '');
    this.cached = undefined;
    return { tool, changes: tool.changes };
  }

  async call(turn: TurnContext, request: ToolCallRequest): Promise<RoutedResult> {
    const callId = request.callId || `call_${randomUUID().slice(0, 8)}`;
    const started = this.clock();
    const args = parseArguments(request.arguments);
    const found = this.enabled ? this.catalog().find((t) => t.name === request.name) : undefined;
    // Content the user must confirm before it is stored; it never reaches the audit, the log or the events.
    const sensitive = found?.sensitiveArgument !== undefined && args.ok ? sensitiveKindsIn(args.value[found.sensitiveArgument]) : [];
    // The parsed object when there is one: the model's text form would show escaped quotes.
    const shown = args.ok ? hideSensitiveArgument(args.value, found?.sensitiveArgument, sensitive) : request.arguments;
    const { hash, summary } = summarizeArguments(shown);
    const auditEntry = (tool: { name: string; server: string }, verdict: Verdict, status: AuditRecord['status'], durationMs: number, text: string, extra: { truncated?: boolean; detail?: string } = {}): AuditRecord => ({
      atMs: started,
      turnId: turn.turnId,
      entry: turn.entry,
      tool: tool.name,
      server: tool.server,
      ...verdict,
      status,
      durationMs,
      argsHash: hash,
      argsSummary: summary,
      outputChars: text.length,
      truncated: extra.truncated ?? false,
      detail: extra.detail,
    });
    // The row written before the run; none for a call refused before it, and none when that write failed (nothing more is tried).
    let auditId: number | undefined;
    let auditable = true;
    const finish = (tool: { name: string; server: string }, verdict: Verdict, status: ToolCallStatus, text: string, extra: { durationMs?: number; truncated?: boolean; detail?: string } = {}): RoutedResult => {
      const durationMs = extra.durationMs ?? this.clock() - started;
      if (auditable) this.trail.end(auditId, auditEntry(tool, verdict, status, durationMs, text, extra));
      this.emit(turn, { type: 'tool.ended', stage: 'tool', callId, tool: tool.name, status, durationMs, outputChars: text.length, truncated: extra.truncated ?? false });
      return { callId, text, isError: status !== 'ok', status };
    };
    const refuse = (tool: { name: string; server: string }, verdict: Verdict, status: ToolCallStatus, code: string, message: string, details?: unknown): RoutedResult =>
      finish(tool, verdict, status, refusal(code, message, details), { detail: message });
    const policyDeny: Verdict = { risk: 'high', decision: 'deny', decidedBy: 'policy' };

    const unknownTool = { name: request.name, server: '' };
    if (!this.enabled) return refuse(unknownTool, policyDeny, 'refused', 'TOOLS_DISABLED', 'tools are turned off on this assistant (router disabled)');

    // Lookup.
    const tool = found;
    if (!tool) return refuse(unknownTool, policyDeny, 'invalid', 'TOOL_UNKNOWN', `no tool named ${JSON.stringify(request.name)}`);
    // A read can stop halfway at no cost; a change, once started, runs to its end (a cancelled turn then drops its result).
    const cancellable = tool.risk === 'read';
    this.emit(turn, { type: 'tool.started', stage: 'tool', callId, tool: tool.name, server: tool.server, entry: turn.entry, argsSummary: summary, cancellable });
    const denied: Verdict = { risk: tool.risk, decision: 'deny', decidedBy: 'policy' };

    if (tool.unsupported) return refuse(tool, denied, 'refused', 'GUI_CONTROL_UNSUPPORTED', tool.unsupported);

    // Pinning.
    if (tool.quarantined) {
      return refuse(tool, denied, 'refused', 'TOOL_QUARANTINED', `the definition of ${tool.name} changed since it was approved; it stays off until the user runs \`desktop-assistant tools approve ${tool.name}\``);
    }

    // Argument validation.
    if (!args.ok) return refuse(tool, denied, 'invalid', 'TOOL_ARGUMENTS_INVALID', args.message);
    const problems = this.validator.validate(tool.inputSchema, args.value);
    if (problems.length > 0) {
      return refuse(tool, denied, 'invalid', 'TOOL_ARGUMENTS_INVALID', `the arguments do not match the schema of ${tool.name}`, problems);
    }

    // Risk policy, then confirmation.
    const reason = sensitive.length > 0 ? `it would store sensitive content: ${sensitive.join(', ').replaceAll('_', ' ')}` : undefined;
    // Sensitive content is never stored unasked, whatever the policy allows; a deny stays a deny.
    const decision = sensitive.length > 0 && tool.decision === 'allow' ? 'confirm' : tool.decision;
    const verdict = await this.decide(turn, tool, decision, callId, summary, reason);
    this.emit(turn, { type: 'tool.decision', stage: 'tool', callId, tool: tool.name, risk: tool.risk, decision: verdict.decision, decidedBy: verdict.decidedBy, approved: verdict.approved });
    if (!verdict.approved) return refuse(tool, verdict, verdict.status, verdict.code, verdict.message);

    // Per-turn budget.
    const exhausted = turn.budget.exhausted();
    if (exhausted) return refuse(tool, verdict, 'budget', 'TOOL_BUDGET_EXCEEDED', `${exhausted}; answer with what you have`);

    // Audit, before the run: a call that cannot be audited does not run.
    try {
      auditId = this.trail.begin(auditEntry(tool, verdict, 'running', 0, ''));
    } catch (error) {
      auditable = false;
      return refuse(tool, verdict, 'refused', 'AUDIT_UNWRITABLE', messageOf(error));
    }

    // Run.
    const runStarted = this.clock();
    const timeoutMs = Math.max(1, Math.min(tool.timeoutMs, turn.budget.remainingRuntimeMs()));
    let raw: string;
    let toolError = false;
    try {
      // Only the router says that the user confirmed: a model cannot put it in the arguments.
      const meta = tool.builtin ? { [META_TURN_ID]: turn.turnId, ...(sensitive.length > 0 ? { [META_USER_CONFIRMED_SENSITIVE]: true } : {}) } : undefined;
      const result = await this.options.hub.callTool(tool.name, args.value, { signal: cancellable ? turn.signal : undefined, timeoutMs, meta });
      raw = resultToText(result);
      toolError = result.isError === true;
    } catch (error) {
      const runMs = this.clock() - runStarted;
      turn.budget.spend(runMs, 0);
      const { status, code, message } = describeRunFailure(error, tool.name, timeoutMs);
      return refuse(tool, verdict, status, code, message);
    }
    const runMs = this.clock() - runStarted;

    // Output handling.
    const limit = Math.min(this.options.config.router.max_output_chars, turn.budget.remainingOutputChars());
    const output = handleOutput(raw, limit);
    turn.budget.spend(runMs, output.text.length);
    // The run's own time: a confirmation's wait is the user's, not the tool's.
    return finish(tool, verdict, toolError ? 'error' : 'ok', output.text, { durationMs: runMs, truncated: output.truncated, detail: toolError ? clip(output.text, 200) : undefined });
  }

  private async decide(
    turn: TurnContext,
    tool: RoutedTool,
    decision: Decision,
    callId: string,
    argsSummary: string,
    askReason: string | undefined,
  ): Promise<Verdict & { approved: boolean; status: ToolCallStatus; code: string; message: string }> {
    const base = { risk: tool.risk, decision };
    if (decision === 'allow') return { ...base, decidedBy: 'policy', approved: true, status: 'ok', code: '', message: '' };
    if (decision === 'deny') {
      return { ...base, decidedBy: 'policy', approved: false, status: 'refused', code: 'TOOL_DENIED', message: `the policy does not allow ${tool.name} (risk ${tool.risk})` };
    }
    const why = askReason === undefined ? {} : { reason: askReason };
    this.emit(turn, { type: 'tool.confirmation_requested', stage: 'tool', callId, tool: tool.name, risk: tool.risk, argsSummary, ...why });
    const request = { callId, turnId: turn.turnId, entry: turn.entry, tool: tool.name, server: tool.server, risk: tool.risk, argsSummary, ...why };
    const { outcome, reason } = await askWithTimeout(turn.confirmation, request, this.options.config.router.confirm_timeout.ms, turn.signal);
    switch (outcome) {
      case 'approved':
        return { ...base, decidedBy: 'user', approved: true, status: 'ok', code: '', message: '' };
      case 'denied':
        return { ...base, decidedBy: 'user', approved: false, status: 'refused', code: 'TOOL_DENIED_BY_USER', message: `the user did not allow ${tool.name}` };
      case 'timeout':
        return { ...base, decidedBy: 'timeout', approved: false, status: 'refused', code: 'TOOL_CONFIRMATION_TIMEOUT', message: `nobody confirmed ${tool.name} in time, so it did not run` };
      case 'cancelled':
        return { ...base, decidedBy: 'user', approved: false, status: 'cancelled', code: 'TOOL_CANCELLED', message: 'the turn was cancelled' };
      case 'unavailable':
        return { ...base, decidedBy: 'channel', approved: false, status: 'refused', code: 'TOOL_CONFIRMATION_UNAVAILABLE', message: `${tool.name} needs the user's confirmation, which cannot be asked here: ${reason ?? 'no channel'}` };
    }
  }

  private emit(turn: TurnContext, event: UnstampedEvent<'atMs' | 'turnId'>): void {
    this.options.bus.emit({ ...event, atMs: this.clock(), turnId: turn.turnId } as AssistantEvent);
  }
}

function sensitiveKindsIn(value: unknown): string[] {
  return typeof value === 'string' ? detectSensitive(value) : [];
}

/** The arguments as the audit, the log and the events may show them: a sensitive argument's text replaced by what it held. */
function hideSensitiveArgument(args: Record<string, unknown>, name: string | undefined, kinds: readonly string[]): Record<string, unknown> {
  if (name === undefined || kinds.length === 0) return args;
  return { ...args, [name]: `[sensitive: ${kinds.join(', ')}]` };
}

function parseArguments(value: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let parsed = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return { ok: true, value: {} };
    try {
      parsed = JSON.parse(value);
    } catch {
      return { ok: false, message: 'the arguments are not valid JSON' };
    }
  }
  if (parsed === undefined || parsed === null) return { ok: true, value: {} };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, message: 'the arguments must be a JSON object' };
  return { ok: true, value: parsed as Record<string, unknown> };
}

function describeRunFailure(error: unknown, tool: string, timeoutMs: number): { status: ToolCallStatus; code: string; message: string } {
  if (isAppError(error, 'TOOL_TIMEOUT')) return { status: 'timeout', code: 'TOOL_TIMEOUT', message: `${tool} did not answer within ${Math.round(timeoutMs)} ms` };
  if (isAppError(error, 'TOOL_CANCELLED')) return { status: 'cancelled', code: 'TOOL_CANCELLED', message: `${tool} was cancelled` };
  if (isAppError(error)) return { status: 'error', code: error.code, message: error.message };
  return { status: 'error', code: 'TOOL_FAILED', message: `${tool} failed: ${error instanceof Error ? error.message : String(error)}` };
}
