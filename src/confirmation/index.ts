/**
 * The confirmation contract: what a tool call the user is asked about says,
 * the answers, and the channel that asks (the terminal, the voice, the HTTP
 * API, MCP elicitation). Written once, here, below both the router that asks
 * and the voice that answers, so neither imports the other.
 */
import type { EntryPoint, Risk } from '../events/index.js';

export interface ConfirmationRequest {
  callId: string;
  turnId: string;
  entry: EntryPoint;
  tool: string;
  server: string;
  risk: Risk;
  /** The arguments, redacted: what the user is asked about. */
  argsSummary: string;
  /** Why the user is asked when the risk alone would not ask (sensitive content to be saved). */
  reason?: string;
}

/** The question every channel asks: the tool, its risk, its redacted arguments, and the reason when there is one. */
export function confirmationQuestion(request: ConfirmationRequest): string {
  const why = request.reason === undefined ? '' : ` (${request.reason})`;
  return `Allow ${request.tool} (${request.risk} risk, server ${request.server}) with ${request.argsSummary}${why}?`;
}

/**
 * `approved`/`denied`: the user answered. `unavailable`: this channel cannot
 * ask anyone (an MCP client without elicitation); the reason says why.
 */
export type ConfirmationAnswer = { answer: 'approved' } | { answer: 'denied' } | { answer: 'unavailable'; reason: string };

/** Asks the user whether a call may run: the terminal, the voice, the HTTP API, MCP elicitation. */
export interface ConfirmationChannel {
  /** `signal` aborts when the router stops waiting (timeout or turn cancelled). */
  confirm(request: ConfirmationRequest, options: { signal: AbortSignal }): Promise<ConfirmationAnswer>;
}

/** For entry points with nobody to ask: every confirmation is refused, saying why. */
export function noConfirmationChannel(reason: string): ConfirmationChannel {
  return { confirm: async () => ({ answer: 'unavailable', reason }) };
}
