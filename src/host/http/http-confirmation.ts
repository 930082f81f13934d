import type { ConfirmationAnswer, ConfirmationChannel, ConfirmationRequest } from '../router/index.js';
import type { PendingConfirmation } from './api-types.js';

interface Waiting {
  pending: PendingConfirmation;
  resolve: (answer: ConfirmationAnswer) => void;
}

/**
 * The router's confirmation channel for the HTTP API and the web page: a
 * call waits in the list until POST /confirmations/:id answers it, or the
 * router stops waiting (timeout, turn cancelled) and it is withdrawn.
 */
export class HttpConfirmations implements ConfirmationChannel {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly clock: () => number = Date.now) {}

  confirm(request: ConfirmationRequest, { signal }: { signal: AbortSignal }): Promise<ConfirmationAnswer> {
    return new Promise((resolve) => {
      const id = request.callId;
      const { callId: _callId, ...rest } = request;
      this.waiting.set(id, { pending: { id, ...rest, askedAtMs: this.clock() }, resolve });
      signal.addEventListener(
        'abort',
        () => {
          if (this.waiting.delete(id)) resolve({ answer: 'denied' });
        },
        { once: true },
      );
    });
  }

  list(): PendingConfirmation[] {
    return [...this.waiting.values()].map((w) => w.pending);
  }

  /** False when nothing waits under that id (answered already, expired, never asked). */
  answer(id: string, approve: boolean): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    this.waiting.delete(id);
    waiting.resolve({ answer: approve ? 'approved' : 'denied' });
    return true;
  }
}
