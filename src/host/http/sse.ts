import type { StreamedEvent } from './api-types.js';
import type { EventLog } from './event-log.js';

export interface SseOptions {
  /** Events replayed on connect when the client names no Last-Event-ID. */
  replayCount: number;
  heartbeatMs: number;
  /** Only these events, when given (a turn's own stream). */
  filter?: (event: StreamedEvent) => boolean;
  /** Ends the stream after this event has been sent. */
  endAfter?: (event: StreamedEvent) => boolean;
}

const encoder = new TextEncoder();

export function formatSse(event: StreamedEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * An event stream as a response body. Whatever way it ends (the client goes
 * away and the body is cancelled, or `endAfter` matched), the follower and the
 * heartbeat are removed: 200 clients coming and going leave nothing behind.
 */
export function eventStream(log: EventLog, lastEventId: string | undefined, options: SseOptions): ReadableStream<Uint8Array> {
  let cleanup = (): void => undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (text: string): void => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      const close = (): void => {
        if (!open) return;
        open = false;
        cleanup();
        controller.close();
      };
      const deliver = (event: StreamedEvent): void => {
        if (options.filter && !options.filter(event)) return;
        send(formatSse(event));
        if (options.endAfter?.(event)) close();
      };
      const lastSeq = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : undefined;
      send(': connected\n\n');
      for (const event of log.replay(lastSeq, options.replayCount)) deliver(event);
      if (!open) return;
      const unfollow = log.follow(deliver);
      const heartbeat = setInterval(() => send(': ping\n\n'), options.heartbeatMs);
      heartbeat.unref();
      cleanup = () => {
        open = false;
        unfollow();
        clearInterval(heartbeat);
      };
    },
    cancel() {
      cleanup();
    },
  });
}
