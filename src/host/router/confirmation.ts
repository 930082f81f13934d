import type { ConfirmationAnswer, ConfirmationChannel, ConfirmationRequest } from '../../confirmation/index.js';

export { confirmationQuestion, noConfirmationChannel, type ConfirmationAnswer, type ConfirmationChannel, type ConfirmationRequest } from '../../confirmation/index.js';

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
