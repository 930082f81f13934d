import { afterEach, vi } from 'vitest';
import { isAppError, type AppError } from '../../../src/errors/index.js';
import { OpenAiLlm, type ChatMessage, type FunctionTool, type LlmEvent, type OpenAiLlmOptions } from '../../../src/host/llm/index.js';
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedLlmServerOptions } from '../../fakes/scripted-llm-server.js';

/** A key no real service issued, easy to spot in any text. */
export const FAKE_KEY = 'sk-fake-KEY-4f9c2e71b3a8d605';
export const USER: ChatMessage[] = [{ role: 'user', content: 'What is the weather in Rome?' }];
export const WEATHER_TOOL: FunctionTool = {
  type: 'function',
  function: { name: 'weather', description: 'The weather of a place', parameters: { type: 'object', properties: { place: { type: 'string' } } } },
};

/** Starts scripted servers that are closed (and real timers restored) after each test. */
export function scriptedServers(): (options: ScriptedLlmServerOptions) => Promise<ScriptedLlmServer> {
  const open: ScriptedLlmServer[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return async (options) => {
    const server = await startScriptedLlmServer(options);
    open.push(server);
    return server;
  };
}

export function llmFor(server: { url: string }, options: Partial<OpenAiLlmOptions> = {}): OpenAiLlm {
  return new OpenAiLlm({ baseUrl: server.url, apiKey: FAKE_KEY, requestTimeoutMs: 10_000, ...options });
}

export interface Outcome {
  events: LlmEvent[];
  error: AppError | undefined;
}

/** Drains a stream; an error must be an AppError. */
export async function collect(stream: AsyncIterable<LlmEvent>): Promise<Outcome> {
  const events: LlmEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { events, error };
  }
}

export const textOf = (events: LlmEvent[]): string => events.flatMap((event) => (event.type === 'text' ? [event.text] : [])).join('');

export function doneOf(events: LlmEvent[]): Extract<LlmEvent, { type: 'done' }> {
  const last = events.at(-1);
  if (last?.type !== 'done') throw new Error(`the stream did not end with done: ${JSON.stringify(last)}`);
  return last;
}

/** Real I/O turns (setImmediate and Date are never faked in these tests) until `check` holds. */
export async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
