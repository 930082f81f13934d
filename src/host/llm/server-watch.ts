/**
 * Whether the LLM server serves, kept true while it does not. A desktop's
 * llama-server is restarted (a new model, an update, a crash) under a
 * running assistant; the assistant must say it is missing while it is, and
 * notice by itself when it is back, never by a restart of the daemon.
 *
 * Probes run only while the server is suspected or missing: a failed
 * request asks for one at once, and a failed probe starts a loop that asks
 * again after each delay until one answers. A healthy, idle assistant sends
 * nothing.
 */
import { messageOf } from '../../errors/index.js';

/** The server is away: what happened, in words, and since when (epoch ms). */
export interface MissingLlmServer {
  message: string;
  sinceMs: number;
}

export type LlmServerChange = { status: 'lost'; missing: MissingLlmServer } | { status: 'restored'; message: string; missingMs: number };

/** One light request (GET /models): resolves when the server answers it, rejects with the reason in words when it does not. */
export type LlmServerProbe = (signal: AbortSignal) => Promise<void>;

export interface LlmServerWatchOptions {
  /** The server's URL as messages show it (no credentials). */
  url: string;
  probe: LlmServerProbe;
  /**
   * Waits between probes while the server is missing: short first (a
   * restarted llama-server with its model in the page cache serves within a
   * second or two), then every second, so a server that returns is seen
   * within about a second plus one probe.
   */
  delaysMs?: readonly number[];
  /** A probe that gets no answer in this time failed (a server that accepts and never answers is as missing as one that refuses). */
  probeTimeoutMs?: number;
  clock?: () => number;
}

export const LLM_PROBE_DELAYS_MS: readonly number[] = [250, 500, 1000];
export const LLM_PROBE_TIMEOUT_MS = 2000;

export class LlmServerWatch {
  private gone: MissingLlmServer | undefined;
  /** Aborts the probe loop under way; undefined while none runs. */
  private probing: AbortController | undefined;
  private closed = false;
  private probes = 0;
  private readonly listeners = new Set<(change: LlmServerChange) => void>();
  private readonly clock: () => number;

  constructor(private readonly options: LlmServerWatchOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** The server as it is missing now, or undefined when it serves (or is not known not to). */
  get missing(): MissingLlmServer | undefined {
    return this.gone;
  }

  /** Probes sent so far (for tests and figures). */
  get probeCount(): number {
    return this.probes;
  }

  /** Whether a probe loop runs now. */
  get checking(): boolean {
    return this.probing !== undefined;
  }

  /**
   * A request failed in a way that may mean the server is gone (or the
   * daemon starts): probe now, and while the probes fail, mark it missing
   * and keep probing. Does nothing while a loop already runs.
   */
  check(): void {
    if (this.closed || this.probing !== undefined) return;
    const controller = new AbortController();
    this.probing = controller;
    // probeUntilServed never rejects: a failed probe is a reason (probeOnce catches it).
    void this.probeUntilServed(controller.signal).finally(() => {
      if (this.probing === controller) this.probing = undefined;
    });
  }

  /** A reply came from the server: it serves, whatever a probe said. */
  served(): void {
    this.probing?.abort();
    this.probing = undefined;
    this.restore();
  }

  /** A listener that throws never stops the others. Returns the unsubscribe. */
  subscribe(listener: (change: LlmServerChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops probing for good. */
  close(): void {
    this.closed = true;
    this.probing?.abort();
    this.probing = undefined;
    this.listeners.clear();
  }

  private async probeUntilServed(signal: AbortSignal): Promise<void> {
    const delays = this.options.delaysMs ?? LLM_PROBE_DELAYS_MS;
    for (let failures = 0; !signal.aborted; failures++) {
      if (failures > 0 && !(await sleep(delays[Math.min(failures - 1, delays.length - 1)]!, signal))) return;
      const reason = await this.probeOnce(signal);
      if (signal.aborted) return;
      if (reason === undefined) return this.restore();
      this.lose(reason);
    }
  }

  /** Undefined when the server answered, else why it did not. */
  private async probeOnce(signal: AbortSignal): Promise<string | undefined> {
    this.probes += 1;
    const timeoutMs = this.options.probeTimeoutMs ?? LLM_PROBE_TIMEOUT_MS;
    const attempt = new AbortController();
    const stop = (): void => attempt.abort();
    signal.addEventListener('abort', stop, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort();
    }, timeoutMs);
    timer.unref?.();
    try {
      await this.options.probe(attempt.signal);
      return timedOut ? this.noAnswer(timeoutMs) : undefined;
    } catch (error) {
      return timedOut ? this.noAnswer(timeoutMs) : messageOf(error);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }

  private noAnswer(ms: number): string {
    return `the LLM server at ${this.options.url} does not answer: nothing within ${ms} ms`;
  }

  private lose(reason: string): void {
    if (this.gone !== undefined) {
      // Still missing: the words follow the latest reason (refused, then a timeout while it loads).
      this.gone = { message: missingMessage(reason), sinceMs: this.gone.sinceMs };
      return;
    }
    this.gone = { message: missingMessage(reason), sinceMs: this.clock() };
    this.tell({ status: 'lost', missing: this.gone });
  }

  private restore(): void {
    const was = this.gone;
    if (was === undefined) return;
    this.gone = undefined;
    const missingMs = this.clock() - was.sinceMs;
    this.tell({ status: 'restored', message: `the LLM server at ${this.options.url} answers again after ${(missingMs / 1000).toFixed(1)} s`, missingMs });
  }

  private tell(change: LlmServerChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A reporter's bug must not stop the others or the watch.
      }
    }
  }
}

function missingMessage(reason: string): string {
  return `${reason}. Questions fail until it is back; the assistant checks every second and carries on by itself`;
}

/** False when `signal` aborted before `ms` passed. Global timers, so virtual time drives it in tests. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    timer.unref?.();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
