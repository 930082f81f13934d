/**
 * The soak's other users of the daemon: two pages that follow `GET /events`
 * (and read `/state`) for a while, leave, and come back; and an editor on
 * `/mcp` that lists the tools and calls one every few seconds, in one
 * session, as an editor keeps. Both can be paused, so descriptors are
 * counted with none of them connected.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { seededRandom } from '../../test/support/seeded-random.js';

export interface ClientCounts {
  pageConnects: number;
  pageEvents: number;
  pageErrors: number;
  editorLists: number;
  editorCalls: number;
  editorErrors: number;
  /** The last error either kind of client met, for the report. */
  lastError?: string;
}

export interface SoakClients {
  counts(): ClientCounts;
  /** Every page leaves and the editor finishes its request; resolves once they have. */
  pause(): Promise<void>;
  resume(): void;
  close(): Promise<void>;
}

const PAGES = 2;
/** A page stays 5-30 s, then is away 1-5 s. */
const STAY_MS: [number, number] = [5_000, 30_000];
const AWAY_MS: [number, number] = [1_000, 5_000];
const EDITOR_EVERY_MS = 5_000;

export async function startSoakClients(url: string, token: string, tool: string): Promise<SoakClients> {
  const counts: ClientCounts = { pageConnects: 0, pageEvents: 0, pageErrors: 0, editorLists: 0, editorCalls: 0, editorErrors: 0 };
  const random = seededRandom(25);
  const between = ([lo, hi]: [number, number]): number => lo + random() * (hi - lo);
  const stopped = new AbortController();
  // One controller per pause: aborting it ends every page's current visit.
  let pausing = new AbortController();
  let paused = false;
  const waiters: Array<() => void> = [];
  const visits = new Set<Promise<void>>();
  const failed = (what: string, error: unknown): void => {
    counts.lastError = `${what}: ${error instanceof Error ? error.message : String(error)}`;
  };
  const whilePaused = async (): Promise<void> => {
    while (paused && !stopped.signal.aborted) await new Promise<void>((resolve) => waiters.push(resolve));
  };

  const visit = async (signal: AbortSignal): Promise<void> => {
    const headers = { authorization: `Bearer ${token}` };
    try {
      counts.pageConnects += 1;
      const state = await fetch(`${url}/state`, { headers, signal });
      await state.arrayBuffer();
      const events = await fetch(`${url}/events`, { headers: { ...headers, accept: 'text/event-stream' }, signal });
      if (!events.ok || !events.body) throw new Error(`GET /events answered ${events.status}`);
      for await (const chunk of events.body) counts.pageEvents += countEvents(chunk);
    } catch (error) {
      // A visit ends by its own timeout, a pause or the end: only other ends are errors.
      if (!signal.aborted) {
        counts.pageErrors += 1;
        failed('page', error);
      }
    }
  };
  const page = async (): Promise<void> => {
    while (!stopped.signal.aborted) {
      await whilePaused();
      if (stopped.signal.aborted) return;
      const visiting = visit(AbortSignal.any([stopped.signal, pausing.signal, AbortSignal.timeout(Math.round(between(STAY_MS)))]));
      visits.add(visiting);
      await visiting;
      visits.delete(visiting);
      // Cut short when the soak stops: the loop ends at its next check.
      await sleep(between(AWAY_MS), undefined, { signal: stopped.signal }).catch(() => undefined);
    }
  };

  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const editor = new Client({ name: 'soak-editor', version: '1' });
  await editor.connect(transport);
  let editorBusy: Promise<void> = Promise.resolve();
  const editorTurn = async (): Promise<void> => {
    try {
      const { tools } = await editor.listTools();
      counts.editorLists += 1;
      if (!tools.some((t) => t.name === tool)) throw new Error(`the editor does not see the tool ${tool}`);
      const result = await editor.callTool({ name: tool, arguments: {} });
      if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content).slice(0, 200)}`);
      counts.editorCalls += 1;
    } catch (error) {
      counts.editorErrors += 1;
      failed('editor', error);
    }
  };
  const editorLoop = async (): Promise<void> => {
    while (!stopped.signal.aborted) {
      await whilePaused();
      if (stopped.signal.aborted) return;
      editorBusy = editorTurn();
      await editorBusy;
      // Cut short when the soak stops: the loop ends at its next check.
      await sleep(EDITOR_EVERY_MS, undefined, { signal: stopped.signal }).catch(() => undefined);
    }
  };

  // A loop that throws ends with its error kept for the report, not as an unhandled rejection.
  const loops = [...Array.from({ length: PAGES }, page), editorLoop()].map((loop) => loop.catch((error: unknown) => failed('client loop', error)));
  return {
    counts: () => ({ ...counts }),
    async pause() {
      paused = true;
      pausing.abort();
      await Promise.all([...visits, editorBusy]);
    },
    resume() {
      pausing = new AbortController();
      paused = false;
      for (const wake of waiters.splice(0)) wake();
    },
    async close() {
      stopped.abort();
      for (const wake of waiters.splice(0)) wake();
      await Promise.allSettled(loops);
      // Clean-up: the daemon may have ended the session already.
      await transport.terminateSession().catch(() => undefined);
      await editor.close();
    },
  };
}

/** SSE events in a chunk: each ends with a blank line (the daemon writes whole events). */
function countEvents(chunk: Uint8Array): number {
  const text = Buffer.from(chunk).toString();
  return text.split('\n\n').length - 1;
}
