import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../src/errors/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { distribution, elapsedMs, now, p50, p95, round, timeMs } from '../test/support/stats.js';
import { requireSuccess, spawnDate } from './lib/spawn-date.js';

const CALLS = 500;
/** Discarded calls that let the JIT, the page cache and the server's first-call paths settle. */
const WARMUP_CALLS = 10;
const CALL_TIMEOUT_MS = 10_000;
const PROGRESS_EVERY = 100;

/** Compiled layout: dist/bench/tool-call.js next to dist/mcp-servers/tools/main.js. */
const TOOLS_SERVER = fileURLToPath(new URL('../mcp-servers/tools/main.js', import.meta.url));

/**
 * `date` as an MCP tool call through the tools server, against spawning
 * `date` from Node directly. Both sides fork/exec the same program with the
 * same environment (the SDK's allow-list, which is what the server itself
 * gets), so the difference is the JSON-RPC round trip and the server's own
 * per-call work.
 */
export const toolCall: Benchmark = {
  name: 'tool-call',
  description: `a tools-server call of \`date\` over MCP stdio vs spawning \`date\` directly, ${CALLS} calls each`,
  run: runToolCall,
};

async function runToolCall(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const { signal } = options;
  await access(TOOLS_SERVER).catch((cause: unknown) => {
    throw new AppError('BENCH_NOT_BUILT', `no compiled tools server at ${TOOLS_SERVER}; run \`npm run build\` first`, { cause });
  });

  const env = getDefaultEnvironment();
  const configDir = await mkdtemp(join(tmpdir(), 'bench-tool-call-'));
  const client = new Client({ name: 'desktop-assistant-bench', version: '0.0.0' });
  try {
    await mkdir(join(configDir, 'tools'));
    await writeFile(join(configDir, 'tools', 'date.toml'), 'description = "The current date and time."\ncommand = ["date"]\n');

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TOOLS_SERVER, '--config-dir', configDir],
      env,
      stderr: 'inherit',
    });
    const serverStartMs = await timeMs(() => client.connect(transport, { signal, timeout: CALL_TIMEOUT_MS }));
    process.stderr.write(`tool-call: server spawned and initialized in ${serverStartMs.toFixed(1)} ms\n`);

    // Neither side gets `signal`: the SDK (1.32, Protocol.request) adds an
    // abort listener per request and never removes it, so one signal over
    // 1,000 calls piles up listeners. Calls take milliseconds; the signal is
    // checked between rounds instead, and CALL_TIMEOUT_MS bounds a stuck call.
    const viaMcp = async (): Promise<void> => {
      requireSuccess((await client.callTool({ name: 'date', arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult);
    };
    const direct = (): Promise<void> => spawnDate(env, CALL_TIMEOUT_MS);

    // A bare JSON-RPC round trip (MCP ping): splits the MCP overhead into
    // the hop itself and the server's own per-call work.
    const ping = async (): Promise<void> => {
      await client.ping({ timeout: CALL_TIMEOUT_MS });
    };

    // Each round runs every arm once, starting one arm later each round, so
    // drift (page cache, GC of the previous call's garbage, a neighbour's
    // load) and order effects fall on all of them evenly.
    const arms = [viaMcp, direct, ping];
    const samples: number[][] = arms.map(() => []);
    const measureRound = async (index: number, into: number[][]): Promise<void> => {
      signal?.throwIfAborted();
      for (let k = 0; k < arms.length; k++) {
        const arm = (index + k) % arms.length;
        const ms = await timeMs(arms[arm] as () => Promise<void>);
        into[arm]?.push(ms);
      }
    };

    for (let i = 0; i < WARMUP_CALLS; i++) await measureRound(i, []);

    const started = now();
    for (let i = 0; i < CALLS; i++) {
      await measureRound(i, samples);
      if ((i + 1) % PROGRESS_EVERY === 0) process.stderr.write(`tool-call: ${i + 1}/${CALLS} rounds\n`);
    }
    process.stderr.write(`tool-call: measured in ${(elapsedMs(started) / 1000).toFixed(1)} s\n`);

    const [mcpMs = [], directMs = [], pingMs = []] = samples;
    return {
      calls: CALLS,
      warmup_calls: WARMUP_CALLS,
      server_start_ms: round(serverStartMs),
      ...distribution('mcp', mcpMs, true),
      ...distribution('direct', directMs, true),
      ...distribution('ping', pingMs),
      overhead_p50_ms: round(p50(mcpMs) - p50(directMs)),
      ratio_p50: round(p50(mcpMs) / p50(directMs), 2),
      ratio_p95: round(p95(mcpMs) / p95(directMs), 2),
    };
  } finally {
    // Closes the server's stdin, then SIGTERM, then SIGKILL (the SDK's stdio transport).
    // Clean-up after the figures: a server that fails to close changes none of them.
    await client.close().catch(() => undefined);
    await rm(configDir, { recursive: true, force: true });
  }
}
