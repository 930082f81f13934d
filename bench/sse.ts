import { fork, type ChildProcess } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { get, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AppError } from '../src/errors/index.js';
import { toolsServerPath } from '../src/host/hub/index.js';
import { startDaemon, type Daemon } from '../src/host/daemon.js';
import { readToken } from '../src/host/http/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { elapsedMs, now, p50, p95, round } from '../test/support/stats.js';

const CLIENTS = 100;
const EVENTS = 1_000;
const ROUNDS = 3;
/** The daemon's default: no ping falls inside a round, so every chunk after `: connected` is an event. */
const HEARTBEAT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** A burst not delivered by then counts what is missing instead of waiting forever. */
const BURST_TIMEOUT_MS = 30_000;
const CLEANUP_TIMEOUT_MS = 5_000;
/** Lets the sockets' close handlers run after the last follower is gone, before memory is read. */
const SETTLE_MS = 100;
/** argv[2] of the forked client process; `npm run bench` never passes it. */
const CLIENT_ROLE = '--sse-clients';
const MIB = 2 ** 20;

/**
 * 100 Server-Sent Events clients on `GET /events` of a real daemon, in a
 * child process (so the daemon's memory figures are its own and the clients'
 * parsing runs on the other core), then a synchronous burst of 1,000 events
 * on the host's bus: every client must get every event once and in order.
 * Three rounds, each with fresh connections, to show memory comes back.
 */
export const sse: Benchmark = {
  name: 'sse',
  description: `${CLIENTS} SSE clients on GET /events, a burst of ${EVENTS} bus events, ${ROUNDS} rounds: delivery, order and memory`,
  run: runSse,
};

type ToParent =
  | { type: 'ready' }
  | { type: 'connected'; errors: string[] }
  | { type: 'results'; tallies: Tally[]; cpuMs: number }
  | { type: 'disconnected' };
type ToChild = { type: 'connect'; url: string; token: string } | { type: 'report' } | { type: 'disconnect' };

/** One client's view of one burst. Times are `process.hrtime.bigint()`: CLOCK_MONOTONIC, the same clock in both processes. */
interface Tally {
  firstNs?: bigint;
  lastNs?: bigint;
  distinct: number;
  duplicated: number;
  outOfOrder: number;
  /** An event whose seq is not the one before it plus one: something in between was dropped. */
  seqGaps: number;
  unexpected: number;
}

interface Memory {
  rss: number;
  heap: number;
}

/** What one round measured; times in milliseconds from the first emit unless named otherwise. */
interface Round {
  tallies: Tally[];
  connectMs: number;
  emitMs: number;
  serverCpuMs: number;
  clientCpuMs: number;
  /** Per client: its first event, and its last (only the clients that got all of them). */
  firstMs: number[];
  clientMs: number[];
  /** The last client's last event; NaN when some client never got the whole burst. */
  lastMs: number;
  cleanupMs: number;
  before: Memory;
  connected: Memory;
  after: Memory;
}

async function runSse(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const { signal } = options;
  await access(toolsServerPath()).catch((cause: unknown) => {
    throw new AppError('BENCH_NOT_BUILT', `no compiled tools server at ${toolsServerPath()}; run \`npm run build\` first`, { cause });
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  const memory = (): Memory => {
    gc?.();
    const usage = process.memoryUsage();
    return { rss: usage.rss / MIB, heap: usage.heapUsed / MIB };
  };
  const root = await mkdtemp(join(tmpdir(), 'bench-sse-'));
  let daemon: Daemon | undefined;
  let child: ChildProcess | undefined;
  try {
    await mkdir(join(root, 'config', 'tools'), { recursive: true });
    const env = { ...getDefaultEnvironment(), DESKTOP_ASSISTANT_DATA_DIR: join(root, 'data'), XDG_RUNTIME_DIR: join(root, 'run') };
    daemon = await startDaemon({ configDir: join(root, 'config'), env, port: 0, voice: false, sse: { heartbeatMs: HEARTBEAT_MS, replayCount: 0 } });
    const token = readToken(daemon.tokenFile);
    if (!token) throw new AppError('BENCH_NO_TOKEN', `the daemon wrote no token at ${daemon.tokenFile}`);
    child = fork(fileURLToPath(import.meta.url), [CLIENT_ROLE], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    // Its start-up (Node, this module's imports) is not the server's to pay for in round 1's connect time.
    await message(child, 'ready', CONNECT_TIMEOUT_MS);
    const busListeners = daemon.host.bus.listenerCount;

    const figures: Figures = { clients: CLIENTS, events: EVENTS, rounds: ROUNDS, gc: gc ? 'exposed' : 'unavailable' };
    const totals = { missing: 0, duplicated: 0, outOfOrder: 0, seqGaps: 0, unexpected: 0 };
    const clientMs: number[] = [];
    const lastMs: number[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      signal?.throwIfAborted();
      const result = await measureRound(daemon, child, token, memory);
      for (const t of result.tallies) {
        totals.missing += EVENTS - t.distinct;
        totals.duplicated += t.duplicated;
        totals.outOfOrder += t.outOfOrder;
        totals.seqGaps += t.seqGaps;
        totals.unexpected += t.unexpected;
      }
      clientMs.push(...result.clientMs);
      lastMs.push(result.lastMs);
      Object.assign(figures, roundFigures(`r${r}_`, result));
      process.stderr.write(
        `sse: round ${r}/${ROUNDS}: ${result.clientMs.length}/${CLIENTS} clients complete, last at ${result.lastMs.toFixed(1)} ms, ` +
          `heap ${result.before.heap.toFixed(1)} -> ${result.connected.heap.toFixed(1)} -> ${result.after.heap.toFixed(1)} MiB\n`,
      );
    }

    const faults = totals.missing + totals.duplicated + totals.outOfOrder + totals.seqGaps + totals.unexpected;
    return {
      ...figures,
      all_delivered_in_order: String(faults === 0),
      missing: totals.missing,
      duplicated: totals.duplicated,
      out_of_order: totals.outOfOrder,
      seq_gaps: totals.seqGaps,
      unexpected: totals.unexpected,
      client_p50_ms: round(orNaN(clientMs, p50), 1),
      client_p95_ms: round(orNaN(clientMs, p95), 1),
      last_client_max_ms: round(Math.max(...lastMs), 1),
      bus_listeners_before: busListeners,
      bus_listeners_after: daemon.host.bus.listenerCount,
    };
  } finally {
    child?.kill();
    // Clean-up after the figures: a daemon that fails to close changes none of them.
    await daemon?.close().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

/** Connect all clients, one burst, disconnect all; memory before, connected after the burst, and after cleanup. */
async function measureRound(daemon: Daemon, child: ChildProcess, token: string, memory: () => Memory): Promise<Round> {
  const { events } = daemon.deps;
  const { bus } = daemon.host;
  const before = memory();

  const connecting = now();
  const connected = message(child, 'connected', CONNECT_TIMEOUT_MS);
  send(child, { type: 'connect', url: daemon.url, token });
  const { errors } = await connected;
  if (errors.length > 0) throw new AppError('BENCH_CONNECT_FAILED', `${errors.length} clients could not connect: ${errors[0]}`);
  await until(() => events.followerCount === CLIENTS, CONNECT_TIMEOUT_MS, `${CLIENTS} followers`);
  const connectMs = elapsedMs(connecting);

  const results = message(child, 'results', BURST_TIMEOUT_MS);
  const cpu = process.cpuUsage();
  const start = now();
  for (let i = 0; i < EVENTS; i++) bus.emit({ type: 'tools.changed', stage: 'hub', count: i, atMs: Date.now() });
  const emitMs = elapsedMs(start);
  // A burst that never completes is a finding, not a failure: take the tallies as they stand.
  const got = await results.catch(() => {
    const late = message(child, 'results', CONNECT_TIMEOUT_MS);
    send(child, { type: 'report' });
    return late;
  });
  const serverCpuMs = cpuMs(process.cpuUsage(cpu));
  const connectedMemory = memory();

  const disconnecting = now();
  const disconnected = message(child, 'disconnected', CLEANUP_TIMEOUT_MS);
  send(child, { type: 'disconnect' });
  await disconnected;
  await until(() => events.followerCount === 0, CLEANUP_TIMEOUT_MS, 'no followers');
  const cleanupMs = elapsedMs(disconnecting);
  await sleep(SETTLE_MS);
  const after = memory();

  const since = (t: bigint): number => Number(t - start) / 1e6;
  const clientMs = got.tallies.flatMap((t) => (t.distinct === EVENTS && t.lastNs !== undefined ? [since(t.lastNs)] : []));
  return {
    tallies: got.tallies,
    connectMs,
    emitMs,
    serverCpuMs,
    clientCpuMs: got.cpuMs,
    firstMs: got.tallies.flatMap((t) => (t.firstNs === undefined ? [] : [since(t.firstNs)])),
    clientMs,
    lastMs: clientMs.length === CLIENTS ? Math.max(...clientMs) : Number.NaN,
    cleanupMs,
    before,
    connected: connectedMemory,
    after,
  };
}

function roundFigures(prefix: string, r: Round): Figures {
  const figures: Figures = {
    connect_ms: round(r.connectMs, 1),
    emit_ms: round(r.emitMs, 1),
    server_cpu_ms: round(r.serverCpuMs, 1),
    client_cpu_ms: round(r.clientCpuMs, 1),
    first_event_p50_ms: round(orNaN(r.firstMs, p50), 1),
    client_p50_ms: round(orNaN(r.clientMs, p50), 1),
    client_p95_ms: round(orNaN(r.clientMs, p95), 1),
    last_client_ms: round(r.lastMs, 1),
    cleanup_ms: round(r.cleanupMs, 1),
  };
  for (const [phase, m] of [['before', r.before], ['connected', r.connected], ['after', r.after]] as const) {
    figures[`${phase}_rss_mib`] = round(m.rss, 1);
    figures[`${phase}_heap_mib`] = round(m.heap, 1);
  }
  return Object.fromEntries(Object.entries(figures).map(([key, value]) => [prefix + key, value]));
}

/** A percentile, or NaN (null in the JSON line) when no client got the whole burst. */
function orNaN(samples: readonly number[], stat: (s: readonly number[]) => number): number {
  return samples.length > 0 ? stat(samples) : Number.NaN;
}

function send(child: ChildProcess, msg: ToChild): void {
  child.send(msg);
}

/** The child's next message of this type; rejects on timeout or if the child exits. */
function message<T extends ToParent['type']>(child: ChildProcess, type: T, timeoutMs: number): Promise<Extract<ToParent, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: ToParent): void => {
      if (msg.type !== type) return;
      done();
      resolve(msg as Extract<ToParent, { type: T }>);
    };
    const onExit = (code: number | null): void => {
      done();
      reject(new AppError('BENCH_CLIENTS_EXITED', `the client process exited (${code}) while waiting for ${type}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new AppError('BENCH_TIMEOUT', `no ${type} from the client process within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const start = now();
  while (!check()) {
    if (elapsedMs(start) > timeoutMs) throw new AppError('BENCH_TIMEOUT', `the server did not reach ${what} within ${timeoutMs} ms`);
    await sleep(1);
  }
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/** The client process: opens the streams on `connect`, tallies each, and reports when all have the whole burst. */
function runClients(): void {
  let requests: ClientRequest[] = [];
  let tallies: Tally[] = [];
  let reported = true;
  let cpu = process.cpuUsage();
  const report = (): void => {
    if (reported) return;
    reported = true;
    process.send?.({ type: 'results', tallies, cpuMs: cpuMs(process.cpuUsage(cpu)) } satisfies ToParent);
  };

  const open = (url: string, token: string, tally: Tally, seen: Uint8Array, onReady: (error?: string) => void): ClientRequest => {
    let buffer = '';
    let maxCount = -1;
    let prevSeq: number | undefined;
    const onEvent = (block: string): void => {
      const fields = new Map(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      let data: { count?: unknown; seq?: unknown } | null;
      try {
        data = JSON.parse(fields.get('data') ?? 'null') as typeof data;
      } catch {
        data = null;
      }
      const count = data?.count;
      const seq = data?.seq;
      if (fields.get('event') !== 'tools.changed' || typeof count !== 'number' || count < 0 || count >= EVENTS || typeof seq !== 'number' || seq !== Number(fields.get('id'))) {
        tally.unexpected += 1;
        return;
      }
      const at = process.hrtime.bigint();
      tally.firstNs ??= at;
      if (prevSeq !== undefined && seq !== prevSeq + 1) tally.seqGaps += 1;
      prevSeq = seq;
      if (seen[count]) tally.duplicated += 1;
      else {
        seen[count] = 1;
        tally.distinct += 1;
      }
      if (count < maxCount) tally.outOfOrder += 1;
      maxCount = Math.max(maxCount, count);
      if (tally.distinct === EVENTS) {
        tally.lastNs = at;
        if (tallies.every((t) => t.distinct === EVENTS)) report();
      }
    };
    const request = get(`${url}/events`, { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) return onReady(`status ${response.statusCode}`);
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block === ': connected') onReady();
          else if (!block.startsWith(':')) onEvent(block);
        }
      });
    });
    // After `connect` has been answered, an error shows as missing events instead.
    request.on('error', (error) => onReady(error.message));
    return request;
  };

  process.on('message', (msg: ToChild) => {
    if (msg.type === 'connect') {
      tallies = Array.from({ length: CLIENTS }, () => ({ distinct: 0, duplicated: 0, outOfOrder: 0, seqGaps: 0, unexpected: 0 }));
      const errors: string[] = [];
      let pending = CLIENTS;
      reported = false;
      cpu = process.cpuUsage();
      requests = tallies.map((tally) => {
        let answered = false;
        return open(msg.url, msg.token, tally, new Uint8Array(EVENTS), (error) => {
          if (answered) return;
          answered = true;
          if (error) errors.push(error);
          if (--pending === 0) process.send?.({ type: 'connected', errors } satisfies ToParent);
        });
      });
    } else if (msg.type === 'report') report();
    else {
      const closing = requests;
      requests = [];
      for (const request of closing) request.destroy();
      process.send?.({ type: 'disconnected' } satisfies ToParent);
    }
  });
  // The benchmark went away (finished, killed, Ctrl-C): so does this process.
  process.once('disconnect', () => process.exit(0));
  process.send?.({ type: 'ready' } satisfies ToParent);
}

if (process.argv[2] === CLIENT_ROLE && process.send) runClients();
