/**
 * The soak's LLM stand-in: an OpenAI-compatible chat server paced like the
 * realistic profile (bench/lib/scripted-llm.ts: the first piece after
 * `firstPieceMs`, then one every `pieceMs`), which answers each question the
 * way the soak has planned its turn: a spoken reply, a tool call (then a
 * reply once the tool's result comes back), or a memory save. The plan is
 * set before the question is played, so a preemptive request and the turn's
 * own request get the same answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LlmProfile } from './scripted-llm.js';

/** What the next question is answered with. */
export type SoakTurnKind = 'plain' | 'tool' | 'memory';

export interface SoakLlmOptions {
  profile: LlmProfile;
  /** The tool a `tool` turn calls, by the name the daemon offers it under. */
  toolName: string;
  /** The memory's save tool. */
  memorySaveName: string;
}

export interface SoakLlmCounts {
  requests: number;
  toolCallsSent: number;
  memorySavesSent: number;
  /** Requests the daemon closed before the end (barge-ins, discarded preemptive requests). */
  aborted: number;
  /** Requests whose plan named a tool the daemon did not offer. */
  missingTool: number;
  /** The tool names the last request with tools offered. */
  offered: string[];
}

export interface SoakLlm {
  url: string;
  /** The plan of the questions from now on. */
  kind: SoakTurnKind;
  counts(): SoakLlmCounts;
  close(): Promise<void>;
}

/** About four seconds of espeak-ng: long enough to be talked over a second in (as is AFTER_TOOL, about two). */
const REPLY = 'It is sunny in Rome today. About twenty degrees, with a light wind.';
const AFTER_TOOL = 'It is late afternoon on a weekday.';
const AFTER_SAVE = 'I will remember that.';

export async function startSoakLlm(options: SoakLlmOptions): Promise<SoakLlm> {
  const counts: SoakLlmCounts = { requests: 0, toolCallsSent: 0, memorySavesSent: 0, aborted: 0, missingTool: 0, offered: [] };
  let saves = 0;
  const llm: SoakLlm = { url: '', kind: 'plain', counts: () => ({ ...counts, offered: [...counts.offered] }), close: async () => undefined };
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'soak-model', object: 'model' }] }));
      return;
    }
    const kind = llm.kind;
    // A request that cannot be read is dropped (destroy below): the client sees its connection close.
    void readJson(request).then((body) => {
      counts.requests += 1;
      const offered = offeredTools(body);
      if (offered.length > 0) counts.offered = offered;
      const answer = answerFor(kind, body, options, () => (saves += 1));
      if (answer.missingTool) counts.missingTool += 1;
      if (answer.call?.name === options.toolName) counts.toolCallsSent += 1;
      if (answer.call?.name === options.memorySaveName) counts.memorySavesSent += 1;
      stream(response, answer, options.profile, () => (counts.aborted += 1));
    }, () => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  llm.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  llm.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return llm;
}

interface Answer {
  text: string;
  call?: { name: string; arguments: string };
  missingTool?: boolean;
}

/** The answer to one request: after a tool's result, words; else what the turn's plan says. */
export function answerFor(kind: SoakTurnKind, body: Record<string, unknown>, options: SoakLlmOptions, nextSave: () => number): Answer {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; name?: unknown }>) : [];
  const last = messages.at(-1);
  if (last?.role === 'tool') return { text: kind === 'memory' ? AFTER_SAVE : AFTER_TOOL };
  if (kind === 'plain') return { text: REPLY };
  const offered = new Set(offeredTools(body));
  const name = kind === 'tool' ? options.toolName : options.memorySaveName;
  // The last round offers no tools (tool_rounds): a spoken reply, as a model would give.
  if (!offered.has(name)) return { text: REPLY, missingTool: offered.size > 0 };
  const args = kind === 'tool' ? {} : { text: `The soak bench's note number ${nextSave()}: the user likes green tea.`, kind: 'note' };
  return { text: '', call: { name, arguments: JSON.stringify(args) } };
}

function offeredTools(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ function?: { name?: unknown } }>) : [];
  return tools.map((t) => t.function?.name).filter((n): n is string => typeof n === 'string');
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'soak', object: 'chat.completion.chunk', created: 0, model: 'soak-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** The answer as SSE chunks, one a piece: words of the text, or a tool call opened and its arguments in three pieces. */
function pieces(answer: Answer): string[] {
  if (!answer.call) return (answer.text.match(/\S+\s*/g) ?? []).map((word) => chunk({ content: word }));
  const { name, arguments: args } = answer.call;
  const third = Math.ceil(args.length / 3);
  const parts = [args.slice(0, third), args.slice(third, 2 * third), args.slice(2 * third)];
  return [
    chunk({ tool_calls: [{ index: 0, id: `call_${Date.now()}`, type: 'function', function: { name, arguments: '' } }] }),
    ...parts.filter((p) => p !== '').map((p) => chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] })),
  ];
}

function stream(response: ServerResponse, answer: Answer, profile: LlmProfile, onAbort: () => void): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const queue = pieces(answer);
  const finish = answer.call ? 'tool_calls' : 'stop';
  let written = 0;
  let timer: NodeJS.Timeout | undefined;
  response.on('close', () => {
    if (response.writableFinished) return;
    clearTimeout(timer);
    onAbort();
  });
  // Piece k is due firstPieceMs + k * pieceMs after the request, so late timers do not add up.
  const start = performance.now();
  const next = (): void => {
    if (response.destroyed) return;
    if (written === 0) response.write(chunk({ role: 'assistant', content: '' }));
    if (written < queue.length) response.write(queue[written++]!);
    if (written >= queue.length) {
      response.write(chunk({}, finish));
      response.end('data: [DONE]\n\n');
      return;
    }
    timer = setTimeout(next, Math.max(0, start + profile.firstPieceMs + written * profile.pieceMs - performance.now()));
  };
  timer = setTimeout(next, profile.firstPieceMs);
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const part of request) text += String(part);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}
