import { randomUUID } from 'node:crypto';
import { AppError, isAppError, messageOf } from '../../errors/index.js';
import { clip, type AssistantBus, type AssistantEvent, type EntryPoint, type UnstampedEvent } from '../../events/index.js';
import { SentenceSplitter, type AssembledToolCall, type ChatMessage, type FunctionTool, type Llm } from '../llm/index.js';
import type { ConfirmationChannel, RoutedResult, RoutedTool, ToolRouter, TurnContext } from '../router/index.js';
import { pickAnnouncement } from './announcement.js';
import { guessLanguage } from '../../language/index.js';
import { memoryContext, type MemoryRecall, type RecalledMemory } from './memory-recall.js';
import { RecallAhead, recallQuery } from './recall-ahead.js';
import { questionKey, Speculation, type SpeculativeReply } from './speculation.js';

export interface ConversationOptions {
  llm: Llm;
  router: ToolRouter;
  bus: AssistantBus;
  systemPrompt: string;
  /** Tool round trips per question; the round after the last offers no tools. */
  toolRounds: number;
  /** Languages announcements may be in (config `voice.<lang>` keys). */
  languages: readonly string[];
  /** Messages of history kept across turns (user text and final replies only). */
  historyLimit?: number;
  /** Long-term memory, recalled before each turn's first request; none when memory is off. */
  recall?: MemoryRecall;
  clock?: () => number;
  random?: () => number;
}

export interface TurnOptions {
  entry: EntryPoint;
  /** The turn's id, when the caller needs it before the turn starts (to follow its events). */
  turnId?: string;
  confirmation: ConfirmationChannel;
  signal?: AbortSignal;
  /** The question's language when speech recognition detected it. */
  language?: string;
  /** Each sentence of the reply as soon as it is complete (the voice speaks them). */
  onSentence?: (sentence: string) => void;
  onAnnouncement?: (phrase: string) => void;
  /**
   * 'at_end' (default): the question and the whole reply go to history when
   * the turn ends. 'by_caller': nothing does until the caller calls
   * `commit` with what the user actually heard (the full-duplex voice,
   * whose reply can be cut off).
   */
  commit?: 'at_end' | 'by_caller';
  /**
   * A reply asked for ahead of the turn (`speculate`): taken when it is this
   * conversation's current one, for the same question (`questionKey`), with
   * the history unchanged since; else discarded and asked afresh.
   */
  speculation?: SpeculativeReply;
}

export interface TurnOutcome {
  turnId: string;
  reply: string;
  /** The reply as the sentences it was spoken in. */
  sentences: string[];
  status: 'ok' | 'error' | 'cancelled';
  error?: AppError;
  toolCalls: RoutedResult[];
}

const DEFAULT_HISTORY = 20;

/**
 * One conversation: history, the LLM's streamed rounds, tool calls through
 * the router, announcements. Tool calls and results live only inside their
 * turn; the history keeps what the user said and what was answered.
 */
export class Conversation {
  private history: ChatMessage[] = [];
  /** Questions committed so far: a speculation started at another count was overtaken by a turn. */
  private commits = 0;
  private readonly clock: () => number;
  private readonly ahead: RecallAhead | undefined;
  /** The one reply asked for ahead of its turn, if any. */
  private speculative: Speculation | undefined;

  constructor(private readonly options: ConversationOptions) {
    this.clock = options.clock ?? Date.now;
    this.ahead = options.recall ? new RecallAhead(options.recall, options.bus, this.clock) : undefined;
  }

  get messages(): readonly ChatMessage[] {
    return this.history;
  }

  /**
   * Starts recalling memories for what the user is saying, before the final
   * transcript: call it with each stable partial transcript. Fire and
   * forget: it returns at once, never throws, reports nothing (a failure
   * only means the turn recalls for itself), and does nothing when memory
   * is off. Calls while a recall runs are coalesced: one runs at a time,
   * and the latest text is recalled next. `turn(text)` uses what was
   * anticipated only for the same question (the same {@link recallQuery}:
   * NFC, white space collapsed, no punctuation at either end), not older
   * than 5 s, and with no tool call started or ended anywhere in the host
   * since; otherwise it recalls afresh. Either way it gives the model the
   * memories its own recall would have found.
   */
  anticipate(text: string): void {
    try {
      this.ahead?.anticipate(text);
    } catch {
      // Anticipation is only ever a head start; the turn recalls for itself.
    }
  }

  /**
   * Preemptive generation: sends the first round's request for `text` now,
   * before the turn is certain, and keeps what comes (see {@link Speculation}).
   * Replaces (discards) the one before. Nothing is said or done with it until
   * `turn(text, { speculation })` takes it.
   */
  speculate(text: string): Speculation {
    this.discardSpeculation(this.speculative, 'another question was heard');
    const committedBefore = this.commits;
    const history = this.history.slice(-(this.options.historyLimit ?? DEFAULT_HISTORY));
    const tools = this.options.toolRounds > 0 ? this.options.router.offered().map(asFunctionTool) : [];
    const speculation = new Speculation({
      text,
      committedBefore,
      memories: this.memoriesQuietly(text),
      firstSegment: firstSegmentFor('voice'),
      stream: (memories, signal) => this.options.llm.stream({ messages: this.messagesFor(text, memories, history), tools: tools.length > 0 ? tools : undefined }, { signal }),
      clock: this.clock,
    });
    this.speculative = speculation;
    this.emit({ type: 'llm.speculation', stage: 'llm', phase: 'started', speculationId: speculation.id, text: clip(text) });
    return speculation;
  }

  /** Cancels a speculative reply (any number of times: the first one counts), saying why. */
  discardSpeculation(reply: SpeculativeReply | undefined, reason: string): void {
    if (!(reply instanceof Speculation)) return;
    const speculation = reply;
    if (this.speculative === speculation) this.speculative = undefined;
    if (!speculation.discard()) return;
    this.emit({ type: 'llm.speculation', stage: 'llm', phase: 'discarded', speculationId: speculation.id, text: clip(speculation.text), reason, wastedPieces: speculation.pieces });
  }

  async turn(text: string, options: TurnOptions): Promise<TurnOutcome> {
    const turnId = options.turnId ?? randomUUID();
    const started = this.clock();
    const context = this.options.router.newTurn(options.entry, options.confirmation, options.signal, turnId);
    const language = options.language ?? guessLanguage(text, this.options.languages);
    const speculation = this.takeSpeculation(text, options.speculation);
    this.emit({ type: 'turn.started', stage: 'conversation', turnId, entry: options.entry, text: clip(text) });

    const said: string[] = [];
    const toolCalls: RoutedResult[] = [];
    const say = (sentence: string): void => {
      said.push(sentence);
      this.emit({ type: 'llm.sentence', stage: 'llm', turnId, text: clip(sentence) });
      options.onSentence?.(sentence);
    };
    const recalled = speculation ? await this.speculatedMemories(speculation, turnId) : await this.recallFor(text, turnId, options.signal);
    const messages = this.messagesFor(text, recalled, this.history.slice(-(this.options.historyLimit ?? DEFAULT_HISTORY)));

    let status: TurnOutcome['status'] = 'ok';
    let error: AppError | undefined;
    try {
      if (speculation) this.emit({ type: 'llm.speculation', stage: 'llm', phase: 'used', turnId, speculationId: speculation.id, text: clip(speculation.text) });
      await this.rounds(messages, context, language, say, toolCalls, options, speculation);
    } catch (caught) {
      error = isAppError(caught) ? caught : new AppError('TURN_FAILED', messageOf(caught), { cause: caught });
      status = error.code === 'LLM_CANCELLED' || options.signal?.aborted ? 'cancelled' : 'error';
      this.emit({ type: 'error', stage: 'llm', turnId, code: error.code, message: error.message, recoverable: true });
    }

    const reply = said.join(' ');
    if ((options.commit ?? 'at_end') === 'at_end') this.commit(text, said);
    this.emit({ type: 'turn.ended', stage: 'conversation', turnId, reply: clip(reply), status, durationMs: this.clock() - started });
    return { turnId, reply, sentences: said, status, error, toolCalls };
  }

  /**
   * Puts a question and the part of its reply that was said into the
   * history. A reply with no sentence leaves no trace: the question alone
   * would read to the model as one still to answer.
   */
  commit(question: string, sentences: readonly string[]): void {
    const reply = sentences.join(' ');
    if (!reply) return;
    this.history.push({ role: 'user', content: question }, { role: 'assistant', content: reply });
    this.commits += 1;
    // Only the last `historyLimit` messages are ever sent: a daemon that runs for days keeps no more.
    const limit = this.options.historyLimit ?? DEFAULT_HISTORY;
    if (this.history.length > limit) this.history.splice(0, this.history.length - limit);
  }

  /** The speculation a turn may take, or undefined (and it is discarded, saying why). */
  private takeSpeculation(text: string, reply: SpeculativeReply | undefined): Speculation | undefined {
    if (!(reply instanceof Speculation)) return undefined;
    const offered = reply;
    const current = offered === this.speculative;
    if (current) this.speculative = undefined;
    let why: string | undefined;
    if (!current) why = 'a newer question was heard';
    else if (offered.key !== questionKey(text)) why = 'the final transcript is another question';
    else if (offered.committedBefore !== this.commits) why = 'another turn came first';
    else if (offered.failed) why = 'its request failed';
    else if (offered.state !== 'running') why = `it was already ${offered.state}`;
    if (why === undefined) return offered;
    this.discardSpeculation(offered, why);
    return undefined;
  }

  private async speculatedMemories(speculation: Speculation, turnId: string): Promise<RecalledMemory[]> {
    const started = this.clock();
    const memories = await speculation.memories;
    if (this.options.recall) this.emit({ type: 'memory.recalled', stage: 'conversation', turnId, ids: memories.map((m) => m.id), durationMs: this.clock() - started });
    return memories;
  }

  /** The first round's messages: the prompt, the memories (their own message, never in history), the history, the question. */
  private messagesFor(text: string, memories: readonly RecalledMemory[], history: readonly ChatMessage[]): ChatMessage[] {
    return [
      { role: 'system', content: this.options.systemPrompt },
      ...(memories.length > 0 ? [{ role: 'system' as const, content: memoryContext(memories) }] : []),
      ...history,
      { role: 'user', content: text },
    ];
  }

  /** A speculation's memories: as a turn would recall them, but a failure reported by the turn's own recall, not here. */
  private async memoriesQuietly(text: string): Promise<RecalledMemory[]> {
    const recall = this.options.recall;
    if (!recall) return [];
    const query = recallQuery(text);
    try {
      return (await this.ahead?.take(query)) ?? (await recall.recall(query, {}));
    } catch {
      return [];
    }
  }

  /**
   * The memories for this question, anticipated or recalled now; a failing
   * memory server costs the turn its memories, not its answer.
   */
  private async recallFor(text: string, turnId: string, signal: AbortSignal | undefined): Promise<RecalledMemory[]> {
    const recall = this.options.recall;
    if (!recall) return [];
    const started = this.clock();
    const query = recallQuery(text);
    const recalled = (memories: RecalledMemory[]): RecalledMemory[] => {
      this.emit({ type: 'memory.recalled', stage: 'conversation', turnId, ids: memories.map((m) => m.id), durationMs: this.clock() - started });
      return memories;
    };
    const anticipated = this.ahead?.take(query);
    if (anticipated && !signal?.aborted) {
      const memories = await untilAborted(anticipated, signal);
      if (memories) return recalled(memories);
    }
    try {
      return recalled(await recall.recall(query, { signal }));
    } catch (error) {
      this.emit({ type: 'error', stage: 'memory', turnId, code: isAppError(error) ? error.code : 'MEMORY_RECALL_FAILED', message: messageOf(error), recoverable: true });
      return [];
    }
  }

  private async rounds(
    messages: ChatMessage[],
    context: TurnContext,
    language: string,
    say: (sentence: string) => void,
    toolCalls: RoutedResult[],
    options: TurnOptions,
    speculation: Speculation | undefined,
  ): Promise<void> {
    let announced = false;
    for (let round = 0; round <= this.options.toolRounds; round++) {
      const offered = round < this.options.toolRounds ? this.options.router.offered() : [];
      const ahead = round === 0 ? speculation : undefined;
      const { text, calls } = await this.streamRound(messages, offered, round, context.turnId, say, options, ahead);
      // The last round offers no tools: a call there cannot run, so the text is
      // the answer. Earlier, even a call of a tool not offered goes to the
      // router, whose refusal the model reads and answers.
      if (calls.length === 0 || round === this.options.toolRounds) return;

      const withIds = calls.map((call, i) => ({ ...call, id: call.id || `call_${round}_${i}` }));
      messages.push({
        role: 'assistant',
        content: text,
        tool_calls: withIds.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });
      if (!announced) {
        const phrase = pickAnnouncement(withIds.map((c) => c.name), offered, language, this.options.random);
        if (phrase) {
          announced = true;
          this.emit({ type: 'announcement', stage: 'conversation', turnId: context.turnId, text: phrase.text, tool: phrase.tool });
          options.onAnnouncement?.(phrase.text);
        }
      }
      for (const call of withIds) {
        const result = await this.options.router.call(context, { callId: call.id, name: call.name, arguments: call.arguments });
        toolCalls.push(result);
        messages.push({ role: 'tool', tool_call_id: call.id, content: result.text });
      }
      if (options.signal?.aborted) throw new AppError('LLM_CANCELLED', 'the turn was cancelled');
    }
  }

  private async streamRound(
    messages: ChatMessage[],
    offered: RoutedTool[],
    round: number,
    turnId: string,
    say: (sentence: string) => void,
    options: TurnOptions,
    speculation?: Speculation,
  ): Promise<{ text: string; calls: AssembledToolCall[] }> {
    const { signal } = options;
    const tools = offered.map(asFunctionTool);
    this.emit({ type: 'llm.request', stage: 'llm', turnId, round, withTools: tools.length > 0 });
    const splitter = new SentenceSplitter({ firstSegment: firstSegmentFor(options.entry) });
    const requested = speculation?.requestedAtMs || this.clock();
    let text = '';
    let calls: AssembledToolCall[] = [];
    // A speculation asked this round's request already, with these messages and tools.
    const stream = speculation ? speculation.take(signal) : this.options.llm.stream({ messages, tools: tools.length > 0 ? tools : undefined }, { signal });
    try {
      for await (const event of stream) {
        if (event.type === 'text') {
          if (!text) this.emit({ type: 'llm.first_token', stage: 'llm', turnId, latencyMs: this.clock() - requested });
          text += event.text;
          this.emit({ type: 'llm.delta', stage: 'llm', turnId, text: clip(event.text) });
          for (const sentence of splitter.push(event.text)) say(sentence);
        } else {
          calls = event.toolCalls;
          // A capped reply ends the turn with what came, and says why.
          if (event.cutOff) this.emit({ type: 'error', stage: 'llm', turnId, code: 'LLM_REPLY_CAPPED', message: event.cutOff, recoverable: true });
        }
      }
    } finally {
      // What was produced before a failure is kept and spoken.
      for (const sentence of splitter.flush()) say(sentence);
    }
    return { text, calls };
  }

  private emit(event: UnstampedEvent): void {
    this.options.bus.emit({ ...event, atMs: this.clock() } as AssistantEvent);
  }
}

/** The promise's value, or undefined as soon as the signal aborts. */
function untilAborted<T>(promise: Promise<T | undefined>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return promise;
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    // An anticipated recall never rejects: a failed one is undefined (recall-ahead.ts), and the turn recalls again.
    void promise.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}


/**
 * A spoken reply's first segment may be a clause: the first sound comes
 * sooner. Printed replies keep whole sentences, one a line.
 */
export function firstSegmentFor(entry: EntryPoint): 'clause' | 'sentence' {
  return entry === 'voice' ? 'clause' : 'sentence';
}

function asFunctionTool(tool: RoutedTool): FunctionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } };
}
