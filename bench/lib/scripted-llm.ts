import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Figures } from './benchmark.js';

/** How fast the scripted LLM answers: the time to its first piece and between pieces, ms. */
export interface LlmProfile {
  name: string;
  firstPieceMs: number;
  pieceMs: number;
}

/** Answers at once: the figures are the pipeline's own. */
export const INSTANT_LLM: LlmProfile = { name: 'instant', firstPieceMs: 0, pieceMs: 0 };

/**
 * llama-server with a 12B model on a desktop GPU, roughly (issue 24): 300 ms to
 * the first token, 25 ms per token after it. A piece here is a word, a little
 * more than a token, so the reply comes slightly faster than that server's would.
 * BENCH_LLM_FIRST_PIECE_MS and BENCH_LLM_PIECE_MS change it for a run.
 */
export const REALISTIC_LLM: LlmProfile = {
  name: 'realistic',
  firstPieceMs: envMs('BENCH_LLM_FIRST_PIECE_MS', 300),
  pieceMs: envMs('BENCH_LLM_PIECE_MS', 25),
};

/** The profiles a bench reports, both by default; BENCH_LLM_PROFILES=instant (or realistic) for one. */
export function benchLlmProfiles(): LlmProfile[] {
  const wanted = (process.env.BENCH_LLM_PROFILES ?? 'instant,realistic').split(',').map((s) => s.trim());
  const profiles = [INSTANT_LLM, REALISTIC_LLM].filter((p) => wanted.includes(p.name));
  if (profiles.length === 0) throw new Error(`BENCH_LLM_PROFILES: none of ${wanted.join(', ')} is instant or realistic`);
  return profiles;
}

/** What the server saw, per profile: requests, those the client aborted before the end, and the pieces written to those. */
export interface BenchLlmStats {
  requests: number;
  aborted: number;
  /** Reply pieces streamed to requests that were then aborted: the tokens thrown away. */
  abortedPieces: number;
}

export interface BenchLlm {
  url: string;
  /** The profile of the requests that arrive from now on; may be changed between turns. */
  profile: LlmProfile;
  /** When each chat request's head arrived (Date.now), for the host's time before it. */
  chatRequestsAtMs: number[];
  /** Counts of the requests that arrived under `profile` (all zero when none did). */
  stats(profile?: string): BenchLlmStats;
  close(): Promise<void>;
}

/**
 * A minimal OpenAI-compatible chat server for the voice benchmarks: every
 * request is answered with the same reply, streamed as llama-server streams
 * (one SSE chunk per word, then a finish chunk and [DONE]), at the pace of
 * its profile: all at once for `instant`, the first piece after
 * `firstPieceMs` and one every `pieceMs` after it otherwise. A client that
 * closes the connection mid-reply (a cancelled turn, a discarded
 * speculative request) is counted as aborted and gets nothing more.
 */
export async function startBenchLlm(reply: string, profile: LlmProfile = INSTANT_LLM): Promise<BenchLlm> {
  const pieces = reply.match(/\S+\s*/g) ?? [];
  const chatRequestsAtMs: number[] = [];
  const counts = new Map<string, BenchLlmStats>();
  const statsOf = (name: string): BenchLlmStats => {
    let s = counts.get(name);
    if (!s) counts.set(name, (s = { requests: 0, aborted: 0, abortedPieces: 0 }));
    return s;
  };
  const llm: BenchLlm = {
    url: '',
    profile,
    chatRequestsAtMs,
    stats: (name = llm.profile.name) => ({ ...statsOf(name) }),
    close: async () => undefined,
  };
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model' }] }));
      return;
    }
    chatRequestsAtMs.push(Date.now());
    const current = llm.profile;
    const stats = statsOf(current.name);
    stats.requests += 1;
    request.resume();
    request.on('end', () => stream(response, pieces, current, stats));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  llm.url = `http://127.0.0.1:${port}/v1`;
  llm.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Keep-alive sockets and replies still streaming would hold close() open.
      server.closeAllConnections();
    });
  return llm;
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', created: 0, model: 'bench-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function stream(response: ServerResponse, pieces: readonly string[], profile: LlmProfile, stats: BenchLlmStats): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  if (profile.firstPieceMs === 0 && profile.pieceMs === 0) {
    response.write(chunk({ role: 'assistant', content: '' }));
    for (const piece of pieces) response.write(chunk({ content: piece }));
    response.write(chunk({}, 'stop'));
    response.end('data: [DONE]\n\n');
    return;
  }
  let written = 0;
  let timer: NodeJS.Timeout | undefined;
  let aborted = false;
  response.on('close', () => {
    if (response.writableFinished) return;
    aborted = true;
    clearTimeout(timer);
    stats.aborted += 1;
    stats.abortedPieces += written;
  });
  // Piece k is due firstPieceMs + k * pieceMs after the request: timers late under load do not add up.
  const start = performance.now();
  const next = (): void => {
    if (aborted) return;
    if (written === 0) response.write(chunk({ role: 'assistant', content: '' }));
    if (written < pieces.length) {
      response.write(chunk({ content: pieces[written]! }));
      written += 1;
    }
    if (written >= pieces.length) {
      response.write(chunk({}, 'stop'));
      response.end('data: [DONE]\n\n');
      return;
    }
    timer = setTimeout(next, Math.max(0, start + profile.firstPieceMs + written * profile.pieceMs - performance.now()));
  };
  timer = setTimeout(next, profile.firstPieceMs);
}

/** `<prefix>_llm_requests`, `_llm_aborted` and `_llm_aborted_pieces`: what the server saw of one profile. */
export function llmFigures(prefix: string, stats: BenchLlmStats): Figures {
  return {
    [`${prefix}_llm_requests`]: stats.requests,
    [`${prefix}_llm_aborted`]: stats.aborted,
    [`${prefix}_llm_aborted_pieces`]: stats.abortedPieces,
  };
}

function envMs(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(Number.isFinite(value) && value >= 0)) throw new Error(`${name} must be a number of ms >= 0, not ${raw}`);
  return value;
}
