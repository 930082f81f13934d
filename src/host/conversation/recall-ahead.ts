import type { AssistantBus } from '../../events/index.js';
import type { MemoryRecall, RecalledMemory } from './memory-recall.js';

/**
 * An anticipated recall older than this is not used: another process (the
 * `memory` command, a second host) may have changed the store since. A
 * stable partial that already holds the whole question comes well within
 * it of the final transcript.
 */
export const ANTICIPATION_MAX_AGE_MS = 5000;

/**
 * The words memory is searched with for a question: Unicode NFC, runs of
 * white space as one space, no punctuation or space at either end. A
 * partial transcript ("what's the weather in Rome") and its final ("What's
 * the weather in Rome?") often differ only there. A turn's own recall asks
 * with this same text, so a turn finds the same memories whether or not
 * its recall was anticipated.
 */
export function recallQuery(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '');
}

interface Anticipation {
  query: string;
  startedMs: number;
  controller: AbortController;
  settled: boolean;
  /** The memories, or undefined when the recall failed: a failure is never reported, the turn recalls again. */
  result: Promise<RecalledMemory[] | undefined>;
}

/**
 * Recall started before the final transcript, while the user is still
 * speaking. At most one recall runs at a time; a text asked for while one
 * runs waits, and only the latest such text is recalled when it ends.
 * What was recalled is dropped when any tool call starts or ends anywhere
 * in the host while it is held (a memory.save or forget from any client
 * goes through the router, which emits both), when it is older than
 * {@link ANTICIPATION_MAX_AGE_MS}, and when a turn takes it.
 */
export class RecallAhead {
  private current: Anticipation | undefined;
  /** The latest text asked for while `current` was running. */
  private pending: string | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly recall: MemoryRecall,
    private readonly bus: AssistantBus,
    private readonly clock: () => number,
  ) {}

  anticipate(text: string): void {
    const query = recallQuery(text);
    if (query === '') return;
    const current = this.current;
    if (current && !current.settled) {
      this.pending = query === current.query ? undefined : query;
      return;
    }
    if (current?.query === query && this.fresh(current)) return;
    this.start(query);
  }

  /**
   * The anticipated recall of exactly this query (see {@link recallQuery}),
   * finished or still running, when it is still valid; otherwise undefined,
   * and a recall still running for other words is cancelled so it does not
   * hold up the turn's own. Either way nothing stays anticipated.
   */
  take(query: string): Promise<RecalledMemory[] | undefined> | undefined {
    const current = this.current;
    this.drop();
    if (!current) return undefined;
    if (current.query === query && this.fresh(current)) return current.result;
    current.controller.abort();
    return undefined;
  }

  private fresh(anticipation: Anticipation): boolean {
    return this.clock() - anticipation.startedMs <= ANTICIPATION_MAX_AGE_MS;
  }

  private start(query: string): void {
    this.unsubscribe ??= this.bus.subscribe((event) => {
      if (event.type === 'tool.started' || event.type === 'tool.ended') this.invalidate();
    });
    const controller = new AbortController();
    const anticipation: Anticipation = { query, startedMs: this.clock(), controller, settled: false, result: Promise.resolve(undefined) };
    anticipation.result = this.recall
      .recall(query, { signal: controller.signal })
      .then(
        (memories) => memories,
        () => undefined,
      )
      .then((memories) => {
        anticipation.settled = true;
        if (this.current === anticipation) this.next();
        return memories;
      });
    this.current = anticipation;
    this.pending = undefined;
  }

  private next(): void {
    const pending = this.pending;
    this.pending = undefined;
    if (pending !== undefined && pending !== this.current?.query) this.start(pending);
  }

  /** The memories may have changed: what was recalled, or is being recalled, no longer counts. */
  private invalidate(): void {
    const current = this.current;
    this.drop();
    current?.controller.abort();
  }

  private drop(): void {
    this.current = undefined;
    this.pending = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }
}
