import type { AssistantBus } from '../../events/index.js';
import type { StreamedEvent } from './api-types.js';

/**
 * The bus as an ordered, numbered log for event streams: the last events are
 * kept for a replay when a client connects (or reconnects with
 * Last-Event-ID), and live ones are handed on as they come.
 */
export class EventLog {
  private seq = 0;
  private readonly recent: StreamedEvent[] = [];
  private readonly listeners = new Set<(event: StreamedEvent) => void>();
  private readonly stopFollowing: () => void;

  constructor(
    bus: AssistantBus,
    private readonly capacity = 500,
  ) {
    this.stopFollowing = bus.subscribe((event) => {
      const numbered = { ...event, seq: ++this.seq } as StreamedEvent;
      this.recent.push(numbered);
      if (this.recent.length > this.capacity) this.recent.shift();
      for (const listener of this.listeners) listener(numbered);
    });
  }

  /** Events after `lastSeq`, or the last `count` when there is none. */
  replay(lastSeq: number | undefined, count: number): StreamedEvent[] {
    if (lastSeq === undefined) return count > 0 ? this.recent.slice(-count) : [];
    return this.recent.filter((e) => e.seq > lastSeq);
  }

  follow(listener: (event: StreamedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  get followerCount(): number {
    return this.listeners.size;
  }

  close(): void {
    this.stopFollowing();
    this.listeners.clear();
  }
}
