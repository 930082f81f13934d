/**
 * The HTTP API's bodies, as the web page and other clients see them. Every
 * route but GET /health, GET / and GET /assets/* needs
 * `Authorization: Bearer <token>`. Errors: `{ error: { code, message } }`.
 */
import type { ActivityState, AssistantEvent, Decision, Risk } from '../../events/index.js';
import type { ServerStatus } from '../hub/index.js';
import type { DiskRoom, StoredAuditRecord } from '../store/index.js';
import type { MissingDevice, RoomReport } from '../../voice/index.js';

export interface ApiError {
  error: { code: string; message: string };
}

/** GET /health (no token). */
export interface HealthBody {
  ok: true;
  version: string;
}

export interface ProviderHealth {
  name: string;
  /** `unknown` until first used. */
  health: 'ok' | 'error' | 'unknown';
  detail?: string;
}

/** GET /state */
export interface StateBody {
  state: ActivityState;
  /** `text` while the voice is off, `turn_based` with it; the full-duplex voice adds `full_duplex_agent`. */
  mode: 'text' | 'turn_based' | 'full_duplex_agent';
  /** `listening`: a recording is under way (a trigger started it and the end of speech has not come). */
  /** `off`: why the voice is not running; `missing`: the sound devices that are gone now, each with what happened in words (absent when none is). */
  voice: { enabled: boolean; listening: boolean; off?: string; room?: RoomReport; missing?: MissingDevice[] };
  /** The data folder's disk (memory, audit): `missing` says in words what a full disk stops, while it is full. */
  storage?: DiskRoom;
  providers: ProviderHealth[];
  /** The LLM server; `missing`: it does not answer now, with what happened in words and since when (absent while it answers). */
  llm: { url: string; missing?: { message: string; sinceMs: number } };
  servers: ServerStatus[];
  tools: ToolSummary[];
  /** The turn in progress, if any. */
  turn: { id: string; startedAtMs: number } | null;
  routerEnabled: boolean;
  /** Recent per-stage latencies in ms (the same figures as GET /metrics). */
  latency: Record<string, { p50: number; p95: number; count: number }>;
}

/** GET /tools, and in /state. */
export interface ToolSummary {
  name: string;
  server: string;
  serverToolName: string;
  description: string;
  risk: Risk;
  riskSource: string;
  decision: Decision;
  status: 'ready' | 'unavailable' | 'quarantined' | 'unsupported';
  quarantined: boolean;
  changes: string[];
}

/** POST /turns `{ text }` answered as JSON (without `Accept: text/event-stream`). */
export interface TurnBody {
  turnId: string;
  reply: string;
  status: 'ok' | 'error' | 'cancelled';
  error?: { code: string; message: string };
  toolCalls: { callId: string; status: string }[];
}

/** GET /confirmations: calls waiting for the user, answered by POST /confirmations/:id `{ approve }`. */
export interface PendingConfirmation {
  /** The tool call's id (also `callId` in the tool.* events). */
  id: string;
  turnId: string;
  entry: string;
  tool: string;
  server: string;
  risk: Risk;
  argsSummary: string;
  /** Why the user is asked when the risk alone would not ask (sensitive content to be saved). */
  reason?: string;
  askedAtMs: number;
}

/** GET /audit?limit=N */
export interface AuditBody {
  records: StoredAuditRecord[];
}

/**
 * GET /events: Server-Sent Events. Each event: `id: <seq>`, `event: <type>`,
 * `data: <AssistantEvent as JSON>`. On connect the last events are replayed
 * (after `Last-Event-ID` when given); a `: ping` comment every 15 s.
 */
export type StreamedEvent = AssistantEvent & { seq: number };
