import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/index.js';
import { createAssistantBus, type AssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { Conversation, recallQuery, type MemoryRecall, type RecalledMemory } from '../../../src/host/conversation/index.js';
import type { Llm, LlmEvent, LlmRequest } from '../../../src/host/llm/index.js';
import { noConfirmationChannel, ToolRouter } from '../../../src/host/router/index.js';
import { openStateDb, SqliteAuditLog, SqlitePinStore, type StateDb } from '../../../src/host/store/index.js';
import { FakeHub } from '../../fakes/fake-hub.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

/** Records every request and answers at once. */
class RecordingLlm implements Llm {
  readonly requests: LlmRequest[] = [];
  async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
    this.requests.push(structuredClone(request));
    yield { type: 'text', text: 'Fine.' };
    yield { type: 'done', toolCalls: [], finishReason: 'stop' };
  }
}

interface RecallCall {
  query: string;
  signal: AbortSignal | undefined;
  resolve(memories: RecalledMemory[]): void;
  reject(error: unknown): void;
}

/** A memory recall whose every call the test settles by hand. */
class HandRecall implements MemoryRecall {
  readonly calls: RecallCall[] = [];
  recall(query: string, { signal }: { signal?: AbortSignal }): Promise<RecalledMemory[]> {
    return new Promise((resolve, reject) => this.calls.push({ query, signal, resolve, reject }));
  }
}

const memory = (id: number, text: string): RecalledMemory => ({ id, kind: 'fact', text, score: 0.8, time: '2026-11-30T10:00:00.000Z' });
/** Lets promise callbacks and the conversation's awaits run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

let dir: TempDir | undefined;
let state: StateDb | undefined;
let now: number;
let bus: AssistantBus;
let events: AssistantEvent[];
let llm: RecordingLlm;
let recall: HandRecall;

async function conversation(options: { memory?: boolean } = {}): Promise<Conversation> {
  dir = await makeTempDir('da-anticipate-');
  const db = openStateDb(dir.path);
  state = db;
  now = 1_000_000;
  bus = createAssistantBus();
  events = [];
  bus.subscribe((e) => events.push(e));
  llm = new RecordingLlm();
  recall = new HandRecall();
  const hub = new FakeHub().addServer({ name: 'tools', trusted: true, builtin: true });
  const config = configSchema.parse({});
  const router = new ToolRouter({ hub, config, audit: new SqliteAuditLog(db), pins: new SqlitePinStore(db), bus, enabled: true });
  return new Conversation({
    llm,
    router,
    bus,
    clock: () => now,
    systemPrompt: 'You are a test.',
    toolRounds: 1,
    languages: ['en'],
    ...(options.memory === false ? {} : { recall }),
  });
}

afterEach(async () => {
  state?.close();
  await dir?.remove();
  state = undefined;
  dir = undefined;
});

const ask = (c: Conversation, text: string) => c.turn(text, { entry: 'voice', confirmation: noConfirmationChannel('test') });
const memoryContext = (request: number): string | undefined => llm.requests[request]?.messages.filter((m) => m.role === 'system')[1]?.content;
const recalledIds = (): number[][] => events.flatMap((e) => (e.type === 'memory.recalled' ? [e.ids] : []));

describe('recall query', () => {
  it('is the text with white space collapsed and no punctuation at either end', () => {
    expect(recallQuery("  What's   the weather\tin Rome? ")).toBe("What's the weather in Rome");
    expect(recallQuery('Where is it... ')).toBe('Where is it');
    // Case is kept: an embedding model may tell "US" from "us".
    expect(recallQuery('US news')).not.toBe(recallQuery('us news'));
    expect(recallQuery('¿Qué hora es?')).toBe('Qué hora es');
    expect(recallQuery(' ?! ')).toBe('');
  });
});

describe('anticipated recall', () => {
  it('is used by a turn for the same question: one recall, its memories given to the model', async () => {
    const c = await conversation();
    c.anticipate("when is my sister's birthday");
    expect(recall.calls.map((call) => call.query)).toEqual(["when is my sister's birthday"]);
    recall.calls[0]?.resolve([memory(7, "My sister's birthday is on March 3")]);
    await settle();

    const outcome = await ask(c, "when is my sister's birthday?");
    expect(outcome.status).toBe('ok');
    expect(recall.calls).toHaveLength(1);
    expect(memoryContext(0)).toContain("My sister's birthday is on March 3");
    expect(recalledIds()).toEqual([[7]]);
  });

  it('is waited for when it is still running for the same question', async () => {
    const c = await conversation();
    c.anticipate('where are the spare keys');
    const turn = ask(c, 'where are the spare keys?');
    await settle();
    expect(llm.requests).toHaveLength(0);
    recall.calls[0]?.resolve([memory(3, 'The spare keys are in the blue drawer')]);
    await turn;
    expect(recall.calls).toHaveLength(1);
    expect(memoryContext(0)).toContain('blue drawer');
  });

  it('is not used for a different question: the turn recalls for its own words, and a recall still running is cancelled', async () => {
    const c = await conversation();
    c.anticipate('when is my');
    recall.calls[0]?.resolve([memory(1, 'My meeting is on Monday')]);
    await settle();
    c.anticipate('when is my sister');
    const turn = ask(c, "When is my sister's birthday?");
    await settle();
    expect(recall.calls.map((call) => call.query)).toEqual(['when is my', 'when is my sister', "When is my sister's birthday"]);
    expect(recall.calls[1]?.signal?.aborted).toBe(true);
    recall.calls[2]?.resolve([memory(7, "My sister's birthday is on March 3")]);
    await turn;
    expect(memoryContext(0)).toContain('March 3');
    expect(memoryContext(0)).not.toContain('Monday');
  });

  it('runs one recall at a time, then only the latest text asked for meanwhile', async () => {
    const c = await conversation();
    c.anticipate('what');
    c.anticipate('what is');
    c.anticipate('what is the');
    c.anticipate('what is the time');
    expect(recall.calls.map((call) => call.query)).toEqual(['what']);
    recall.calls[0]?.resolve([]);
    await settle();
    expect(recall.calls.map((call) => call.query)).toEqual(['what', 'what is the time']);
    // The same words again while they are being recalled, or once recalled, start nothing.
    c.anticipate('what is the time');
    recall.calls[1]?.resolve([memory(2, 'The time zone is CET')]);
    await settle();
    c.anticipate('what is the time?');
    expect(recall.calls).toHaveLength(2);
    await ask(c, 'what is the time?');
    expect(recall.calls).toHaveLength(2);
    expect(memoryContext(0)).toContain('CET');
  });

  it('fails quietly: no error event, and the turn recalls again', async () => {
    const c = await conversation();
    c.anticipate('where is the boiler code');
    recall.calls[0]?.reject(new Error('memory server gone'));
    await settle();
    expect(events.filter((e) => e.type === 'error')).toEqual([]);

    const turn = ask(c, 'Where is the boiler code?');
    await settle();
    expect(recall.calls).toHaveLength(2);
    recall.calls[1]?.resolve([memory(5, 'The boiler code is in the blue folder')]);
    const outcome = await turn;
    expect(outcome.status).toBe('ok');
    expect(memoryContext(0)).toContain('blue folder');
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
  });

  it('never throws, even when the recall itself throws at once', async () => {
    const c = await conversation();
    recall.recall = () => {
      throw new Error('broken');
    };
    expect(() => c.anticipate('anything at all')).not.toThrow();
  });

  it('is dropped when a tool call starts or ends meanwhile (a save may have changed the memories)', async () => {
    const c = await conversation();
    c.anticipate('where is the boiler code');
    recall.calls[0]?.resolve([]);
    await settle();
    bus.emit({ type: 'tool.ended', stage: 'tool', atMs: now, callId: 'c1', tool: 'memory_save', status: 'ok', durationMs: 3, outputChars: 20, truncated: false });
    const turn = ask(c, 'Where is the boiler code?');
    await settle();
    expect(recall.calls).toHaveLength(2);
    recall.calls[1]?.resolve([memory(5, 'The boiler code is in the blue folder')]);
    await turn;
    expect(memoryContext(0)).toContain('blue folder');
  });

  it('is dropped when older than 5 s', async () => {
    const c = await conversation();
    c.anticipate('where is the boiler code');
    recall.calls[0]?.resolve([]);
    await settle();
    now += 5001;
    const turn = ask(c, 'Where is the boiler code?');
    await settle();
    expect(recall.calls).toHaveLength(2);
    recall.calls[1]?.resolve([]);
    await turn;
  });

  it('is used once: the next turn with the same words recalls again', async () => {
    const c = await conversation();
    c.anticipate('hello');
    recall.calls[0]?.resolve([]);
    await settle();
    await ask(c, 'hello.');
    const again = ask(c, 'hello.');
    await settle();
    expect(recall.calls).toHaveLength(2);
    recall.calls[1]?.resolve([]);
    await again;
  });

  it('does nothing when memory is off', async () => {
    const c = await conversation({ memory: false });
    c.anticipate('where is the boiler code');
    const outcome = await ask(c, 'Where is the boiler code?');
    expect(outcome.status).toBe('ok');
    expect(recall.calls).toEqual([]);
    expect(recalledIds()).toEqual([]);
    expect(memoryContext(0)).toBeUndefined();
  });
});
