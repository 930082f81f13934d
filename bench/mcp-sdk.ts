import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { PAIRS, type ConnectedPair, type PairName } from './lib/mcp-sdk-clients.js';
import { IMPORT_ENTRIES, installedBytes, sampleImport, type ImportEntry } from './lib/mcp-sdk-imports.js';
import { spawnDate } from './lib/spawn-date.js';
import { distribution, elapsedMs, now, p50, round, timeMs } from '../test/support/stats.js';

const IMPORT_SAMPLES = 10;
const START_SAMPLES = 10;
const CALLS = 300;
/** Discarded rounds: the JIT, the schema compiles and the first-call paths settle. */
const WARMUP_CALLS = 10;
const CALL_TIMEOUT_MS = 10_000;
const MIB = 2 ** 20;
/** The pairs whose calls are timed: one connection each, kept open. 'auto' calls as its pinned era does. */
const CALL_PAIRS: readonly PairName[] = ['v1', 'v2_legacy', 'v2_modern'];

/**
 * The MCP SDK's v1 package against its v2 packages, side by side in one run
 * (issue 27): import time of each one's stdio server and client entry points,
 * a stdio server's start (spawn until `initialize` or `server/discover` is
 * answered), and a `tools/call` of `date` on an open connection against
 * spawning `date` directly, and of `fixed_date`, which answers at once (the
 * SDKs' own round trip). Each round runs every arm once in a random order.
 */
export const mcpSdk: Benchmark = {
  name: 'mcp-sdk',
  description: `MCP SDK v1 vs v2: import time (${IMPORT_SAMPLES} fresh processes each), stdio server start (${START_SAMPLES} each), a call of \`date\` (${CALLS} each)`,
  run: runMcpSdk,
};

async function runMcpSdk(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const { signal } = options;
  const figures: Figures = {};

  const entries = Object.keys(IMPORT_ENTRIES) as ImportEntry[];
  const imports = new Map<ImportEntry, { importMs: number[]; processMs: number[] }>(entries.map((e) => [e, { importMs: [], processMs: [] }]));
  for (let i = 0; i < IMPORT_SAMPLES; i++) {
    signal?.throwIfAborted();
    for (const entry of shuffled(entries)) {
      const sample = await sampleImport(entry);
      imports.get(entry)?.importMs.push(sample.importMs);
      imports.get(entry)?.processMs.push(sample.processMs);
    }
  }
  for (const [entry, samples] of imports) {
    figures[`import_${entry}_p50_ms`] = round(p50(samples.importMs));
    figures[`process_${entry}_p50_ms`] = round(p50(samples.processMs));
  }
  process.stderr.write(`mcp-sdk: imports measured\n`);

  const starters = Object.keys(PAIRS) as PairName[];
  const starts = new Map<PairName, number[]>(starters.map((name) => [name, []]));
  for (let i = 0; i < START_SAMPLES; i++) {
    signal?.throwIfAborted();
    for (const name of shuffled(starters)) {
      const started = now();
      const pair = await PAIRS[name].connect();
      starts.get(name)?.push(elapsedMs(started));
      await pair.close();
    }
  }
  for (const [name, samples] of starts) Object.assign(figures, distribution(`start_${name}`, samples));
  process.stderr.write(`mcp-sdk: server starts measured\n`);

  Object.assign(figures, await measureCalls(signal));

  figures.installed_v1_mib = round((await installedBytes(['@modelcontextprotocol/sdk'])) / MIB, 1);
  figures.installed_v2_mib = round((await installedBytes(['@modelcontextprotocol/server', '@modelcontextprotocol/client', '@modelcontextprotocol/core'])) / MIB, 1);
  return figures;
}

async function measureCalls(signal: AbortSignal | undefined): Promise<Figures> {
  const env = getDefaultEnvironment();
  const connected: Partial<Record<PairName, ConnectedPair>> = {};
  try {
    for (const name of CALL_PAIRS) connected[name] = await PAIRS[name].connect();
    const arms: Record<string, () => Promise<void>> = { direct: () => spawnDate(env, CALL_TIMEOUT_MS) };
    for (const name of CALL_PAIRS) {
      const pair = connected[name];
      if (pair) {
        arms[name] = () => pair.callDate();
        arms[`fixed_${name}`] = () => pair.callFixed();
      }
    }
    const names = Object.keys(arms);
    const samples = new Map<string, number[]>(names.map((name) => [name, []]));
    for (let i = 0; i < WARMUP_CALLS + CALLS; i++) {
      signal?.throwIfAborted();
      for (const name of shuffled(names)) {
        const ms = await timeMs(arms[name] as () => Promise<void>);
        if (i >= WARMUP_CALLS) samples.get(name)?.push(ms);
      }
    }
    process.stderr.write(`mcp-sdk: calls measured\n`);
    const figures: Figures = { calls: CALLS, warmup_calls: WARMUP_CALLS };
    for (const [name, values] of samples) Object.assign(figures, distribution(`call_${name}`, values, true));
    return figures;
  } finally {
    // Clean-up after the figures: a pair that fails to close changes none of them.
    await Promise.all(Object.values(connected).map((pair) => pair.close().catch(() => undefined)));
  }
}

/** A Fisher-Yates shuffle into a new array. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
