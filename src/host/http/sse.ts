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

/**
 * Bytes queued for one client beyond which it counts as stuck: its stream is
 * closed, and it comes back with Last-Event-ID. Without a bound, a client
 * that stops reading would hold every event since, for as long as it lives.
 */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

export function formatSse(event: StreamedEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Each event is formatted once, however many clients follow it. */
const encoded = new WeakMap<StreamedEvent, Uint8Array>();

function encodedEvent(event: StreamedEvent): Uint8Array {
  let bytes = encoded.get(event);
  if (!bytes) {
    bytes = encoder.encode(formatSse(event));
    encoded.set(event, bytes);
  }
  return bytes;
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
      const send = (bytes: Uint8Array): void => {
        if (!open) return;
        controller.enqueue(bytes);
        if ((controller.desiredSize ?? 0) < 0) close();
      };
      const close = (): void => {
        if (!open) return;
        open = false;
        cleanup();
        controller.close();
      };
      const deliver = (event: StreamedEvent): void => {
        if (options.filter && !options.filter(event)) return;
        send(encodedEvent(event));
        if (options.endAfter?.(event)) close();
      };
      const lastSeq = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : undefined;
      send(encoder.encode(': connected\n\n'));
      for (const event of log.replay(lastSeq, options.replayCount)) deliver(event);
      if (!open) return;
      const unfollow = log.follow(deliver);
      const ping = encoder.encode(': ping\n\n');
      const heartbeat = setInterval(() => send(ping), options.heartbeatMs);
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
  }, new ByteLengthQueuingStrategy({ highWaterMark: MAX_QUEUED_BYTES }));
}
