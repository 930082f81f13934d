import { randomUUID } from 'node:crypto';
import { AppError } from '../../errors/index.js';
import type { LlmEvent } from '../llm/index.js';
import { SentenceSplitter } from '../llm/index.js';
import type { RecalledMemory } from './memory-recall.js';
import { recallQuery } from './recall-ahead.js';

/**
 * The words two transcripts of one question are compared by: the recall's
 * normal form (NFC, one space, no punctuation at either end), in lower case.
 * "What's the weather in Rome" and "what's the weather in rome?" are the same question.
 */
export function questionKey(text: string): string {
  return recallQuery(text).toLowerCase();
}

/** A speculative reply as its asker sees it: which question, and the first segment to get ready. */
export interface SpeculativeReply {
  readonly id: string;
  readonly text: string;
  /** The reply's first segment once the LLM has written it; undefined when none will come (a tool call first, a failure, a discard). */
  readonly firstSentence: Promise<string | undefined>;
}

export type SpeculationState = 'running' | 'used' | 'discarded';

/** What a speculation was started from: the request's input as the turn would have built it then. */
export interface SpeculationStart {
  text: string;
  /** The conversation's count of committed questions when it started: one committed since means another question came first. */
  committedBefore: number;
  /** The memories recalled for it, kept for the turn that takes it. */
  memories: Promise<RecalledMemory[]>;
  /** Starts the round-0 request; the stream is read at once, whether or not the turn comes. */
  stream: (memories: RecalledMemory[], signal: AbortSignal) => AsyncIterable<LlmEvent>;
  clock: () => number;
  /** How the turn's splitter cuts the reply's first segment (the same cut, so the prepared audio is the one said). */
  firstSegment: 'clause' | 'sentence';
}

/**
 * A reply asked for before the turn was certain (preemptive generation):
 * the first round's request sent with the words heard so far while the user
 * pauses. Its events are kept, not acted on: nothing is said, printed,
 * announced, called or put in history until a turn takes it (`take`), and
 * a turn replays them as if they came now. A tool call it asks for is only
 * an event in the list, made by the turn through the router. `discard`
 * cancels the request; it may be called any number of times.
 */
export class Speculation implements SpeculativeReply {
  readonly id = randomUUID();
  readonly text: string;
  readonly key: string;
  readonly committedBefore: number;
  /** When the request was sent (the turn's first-token latency counts from here). */
  requestedAtMs = 0;
  /** The reply's first segment, as the turn's splitter will cut it; undefined when none will come before a tool call, a failure or a discard. */
  readonly firstSentence: Promise<string | undefined>;
  readonly memories: Promise<RecalledMemory[]>;
  private readonly controller = new AbortController();
  private readonly events: LlmEvent[] = [];
  private finished = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  private status: SpeculationState = 'running';
  private textPieces = 0;
  private resolveFirst!: (sentence: string | undefined) => void;

  constructor(start: SpeculationStart) {
    this.text = start.text;
    this.key = questionKey(start.text);
    this.committedBefore = start.committedBefore;
    this.memories = start.memories;
    this.firstSentence = new Promise((resolve) => (this.resolveFirst = resolve));
    // run() keeps its failure in `failure` and always resolves firstSentence (finally).
    void this.run(start);
  }

  get state(): SpeculationState {
    return this.status;
  }

  /** Reply pieces (text deltas) the LLM streamed for it so far: what a discard throws away. */
  get pieces(): number {
    return this.textPieces;
  }

  /** Whether the request failed before a turn took it (the turn then asks afresh). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Cancels the request; true the first time, when it was still running. */
  discard(): boolean {
    if (this.status !== 'running') return false;
    this.status = 'discarded';
    this.controller.abort(new AppError('LLM_CANCELLED', 'the speculative reply was discarded'));
    this.resolveFirst(undefined);
    this.notify();
    return true;
  }

  /**
   * Hands the request to a turn: its events so far, then the rest as they
   * come. The turn's signal now cancels it.
   */
  take(signal: AbortSignal | undefined): AsyncIterable<LlmEvent> {
    if (this.status !== 'running') throw new AppError('LLM_CANCELLED', `this speculative reply was already ${this.status}`);
    this.status = 'used';
    if (signal?.aborted) this.controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => this.controller.abort(signal.reason), { once: true });
    return this.replay();
  }

  private async *replay(): AsyncIterable<LlmEvent> {
    let next = 0;
    for (;;) {
      while (next < this.events.length) yield this.events[next++]!;
      if (this.failure !== undefined) throw this.failure;
      if (this.finished) return;
      if (this.controller.signal.aborted) throw new AppError('LLM_CANCELLED', 'the turn was cancelled');
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private async run(start: SpeculationStart): Promise<void> {
    const splitter = new SentenceSplitter({ firstSegment: start.firstSegment });
    let first: string | undefined;
    try {
      const memories = await start.memories;
      if (this.controller.signal.aborted) return;
      this.requestedAtMs = start.clock();
      for await (const event of start.stream(memories, this.controller.signal)) {
        this.events.push(event);
        if (event.type === 'text') {
          this.textPieces++;
          if (first === undefined) [first] = splitter.push(event.text);
          if (first !== undefined) this.resolveFirst(first);
        }
        this.notify();
      }
      if (first === undefined) this.resolveFirst(splitter.flush()[0]);
    } catch (error) {
      this.failure = error;
    } finally {
      this.finished = true;
      this.resolveFirst(undefined);
      this.notify();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
