/**
 * One operation's abort signal: aborted by the caller's signal or by a
 * deadline, whichever comes first, and remembering which (the first reason
 * only, as execa does). `dispose` clears the timer and the listener on the
 * caller's signal, which may be shared by many operations of one turn.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Why the signal aborted, once it has. */
  readonly reason: 'timeout' | 'cancelled' | undefined;
  dispose(): void;
}

export function withDeadline(callerSignal: AbortSignal | undefined, timeoutMs: number): Deadline {
  const controller = new AbortController();
  let reason: 'timeout' | 'cancelled' | undefined;
  const onAbort = (): void => {
    reason ??= 'cancelled';
    controller.abort(callerSignal?.reason);
  };
  if (callerSignal?.aborted) onAbort();
  else callerSignal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    reason ??= 'timeout';
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  timer.unref();
  return {
    signal: controller.signal,
    get reason() {
      return reason;
    },
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
    },
  };
}
