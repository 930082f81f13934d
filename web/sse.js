// Server-Sent Events over fetch(). The browser's EventSource cannot send an
// Authorization header and the token must never go into a URL, so the stream
// is read with fetch() and parsed here, following the WHATWG "event stream
// interpretation" rules (https://html.spec.whatwg.org/multipage/server-sent-events.html).

/**
 * Incremental text/event-stream parser. Text may arrive split anywhere: inside
 * a field, between a CR and its LF, or between the lines of a multi-line data.
 */
export class SseParser {
  #buffer = '';
  #skipLf = false;
  #data = [];
  #type = '';
  #idBuffer = '';

  /**
   * @param {{ onEvent: (event: { type: string, data: string, lastEventId: string }) => void,
   *           onComment?: (text: string) => void, onRetry?: (ms: number) => void }} handlers
   * @param {string} [lastEventId] carried over from the previous connection
   */
  constructor(handlers, lastEventId = '') {
    this.handlers = handlers;
    this.#idBuffer = lastEventId;
    /** The id of the last dispatched event: what a reconnect sends as Last-Event-ID. */
    this.lastEventId = lastEventId;
  }

  /** Feeds decoded text. */
  push(text) {
    if (text === '') return;
    if (this.#skipLf) {
      // The previous chunk ended with CR: a LF starting this one belongs to it.
      this.#skipLf = false;
      if (text.startsWith('\n')) text = text.slice(1);
    }
    // The buffer never holds a line ending, so only the new text needs scanning.
    let from = this.#buffer.length;
    const buf = this.#buffer + text;
    let start = 0;
    for (let i = from; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#line(buf.slice(start, i));
      if (c === 13) {
        if (i + 1 === buf.length) this.#skipLf = true;
        else if (buf.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.#buffer = buf.slice(start);
  }

  #line(line) {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return this.handlers.onComment?.(line.slice(1).trimStart());
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#type = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.#idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.handlers.onRetry?.(Number(value));
        break;
      default:
        // Unknown fields are ignored, as the spec says.
        break;
    }
  }

  #dispatch() {
    // The id counts for reconnection even when the block carried no data.
    this.lastEventId = this.#idBuffer;
    const type = this.#type || 'message';
    const data = this.#data;
    this.#type = '';
    this.#data = [];
    if (data.length === 0) return;
    this.handlers.onEvent({ type, data: data.join('\n'), lastEventId: this.lastEventId });
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Follows an event stream for as long as it is not stopped: reconnects after a
 * drop with exponential backoff (with jitter, so many pages do not come back in
 * step) and sends Last-Event-ID so the server replays only what was missed.
 *
 * @param {{
 *   url: string,
 *   token: () => string | null,
 *   onEvent: (event: { type: string, data: string, lastEventId: string }) => void,
 *   onOpen?: (info: { reconnected: boolean }) => void,
 *   onStatus?: (status: 'connecting' | 'live' | 'reconnecting' | 'stopped', detail?: { retryInMs?: number, reason?: string }) => void,
 *   onUnauthorized?: () => void,
 *   initialRetryMs?: number, maxRetryMs?: number,
 *   idleTimeoutMs?: number,
 * }} options
 * @returns {{ stop: () => void, reconnectNow: () => void }}
 */
export function followEvents(options) {
  const initialRetryMs = options.initialRetryMs ?? 1000;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  // The server sends `: ping` every 15 s; three missed pings mean a dead link
  // that TCP alone may take minutes to notice.
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  const stopper = new AbortController();
  let connection = null;
  let wake = new AbortController();
  let lastEventId = '';
  let baseRetryMs = initialRetryMs;
  let failures = 0;
  let opened = false;

  const status = (s, detail) => options.onStatus?.(s, detail);

  async function connectOnce() {
    connection = new AbortController();
    const { signal } = connection;
    let watchdog;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => connection?.abort(new Error('no data or heartbeat in time')), idleTimeoutMs);
    };
    try {
      const token = options.token();
      if (!token) {
        options.onUnauthorized?.();
        return 'unauthorized';
      }
      const headers = { Accept: 'text/event-stream', Authorization: `Bearer ${token}` };
      if (lastEventId !== '') headers['Last-Event-ID'] = lastEventId;
      arm();
      const response = await fetch(options.url, { headers, signal, cache: 'no-store' });
      if (response.status === 401) {
        options.onUnauthorized?.();
        return 'unauthorized';
      }
      const type = response.headers.get('content-type') ?? '';
      if (!response.ok || !response.body || !type.startsWith('text/event-stream')) {
        await response.body?.cancel().catch(() => undefined);
        return `HTTP ${response.status}`;
      }
      options.onOpen?.({ reconnected: opened });
      opened = true;
      status('live');
      const parser = new SseParser(
        {
          onEvent: (event) => {
            failures = 0;
            options.onEvent(event);
          },
          onComment: () => {
            failures = 0;
          },
          onRetry: (ms) => {
            baseRetryMs = Math.min(Math.max(ms, 100), maxRetryMs);
          },
        },
        lastEventId,
      );
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          arm();
          parser.push(decoder.decode(value, { stream: true }));
          lastEventId = parser.lastEventId;
        }
        parser.push(decoder.decode());
        lastEventId = parser.lastEventId;
      } finally {
        reader.releaseLock();
      }
      return 'the server closed the stream';
    } catch (error) {
      return signal.reason?.message ?? error?.message ?? 'network error';
    } finally {
      clearTimeout(watchdog);
      connection = null;
    }
  }

  (async () => {
    status('connecting');
    while (!stopper.signal.aborted) {
      const outcome = await connectOnce();
      if (stopper.signal.aborted || outcome === 'unauthorized') break;
      failures += 1;
      // A stream that delivered something resets `failures` to 0, so the first
      // retry after a long healthy connection is quick.
      const exp = Math.min(maxRetryMs, baseRetryMs * 2 ** Math.max(0, failures - 1));
      const retryInMs = Math.round(exp * (0.8 + Math.random() * 0.4));
      status('reconnecting', { retryInMs, reason: outcome });
      wake = new AbortController();
      await sleep(retryInMs, AbortSignal.any([stopper.signal, wake.signal]));
    }
    status('stopped');
  })();

  return {
    stop() {
      stopper.abort();
      connection?.abort(new Error('stopped'));
    },
    /** Skips the wait before the next attempt (the page became visible, the network came back). */
    reconnectNow() {
      wake.abort();
    },
  };
}
