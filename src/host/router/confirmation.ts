import type { EntryPoint, Risk } from '../../events/index.js';

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

export type ConfirmationOutcome = 'approved' | 'denied' | 'timeout' | 'unavailable' | 'cancelled';

/** Asks through the channel, with the router's timeout; no answer in time is a refusal. */
export async function askWithTimeout(
  channel: ConfirmationChannel,
  request: ConfirmationRequest,
  timeoutMs: number,
  turnSignal?: AbortSignal,
): Promise<{ outcome: ConfirmationOutcome; reason?: string }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onTurnAbort = (): void => controller.abort();
  turnSignal?.addEventListener('abort', onTurnAbort, { once: true });
  try {
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
      timer.unref?.();
    });
    const cancelled = new Promise<'cancelled'>((resolve) => {
      if (controller.signal.aborted) resolve('cancelled');
      controller.signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
    });
    const answered = channel.confirm(request, { signal: controller.signal }).catch(
      (error: unknown): ConfirmationAnswer => ({ answer: 'unavailable', reason: error instanceof Error ? error.message : String(error) }),
    );
    const first = await Promise.race([answered, timedOut, cancelled]);
    if (first === 'timeout' || first === 'cancelled') return { outcome: first };
    if (first.answer === 'unavailable') return { outcome: 'unavailable', reason: first.reason };
    return { outcome: first.answer };
  } finally {
    clearTimeout(timer);
    turnSignal?.removeEventListener('abort', onTurnAbort);
    controller.abort();
  }
}
