import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AppError } from '../src/errors/index.js';
import { createAssistantBus } from '../src/events/index.js';
import { TOOLS_SERVER_NAME, toolsServerPath } from '../src/host/hub/index.js';
import { startHost } from '../src/host/runtime.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { elapsedMs, now, p50, p95, percentile, round, timeMs } from '../test/support/stats.js';

const RUNS = 10;
/** A discarded first round: it creates and migrates each state database and fills the page cache. */
const WARMUP_RUNS = 1;
const THIRD_PARTY = 'everything';

/** Ten tool files, some with parameters, as a user's folder might hold: each is parsed, validated and listed. */
const TOOL_FILES: Readonly<Record<string, string>> = {
  date: 'description = "The current date and time."\ncommand = ["date"]\n',
  uptime: 'description = "How long the computer has been running."\ncommand = ["uptime"]\n',
  hostname: 'description = "The computer\'s name."\ncommand = ["hostname"]\n',
  whoami: 'description = "The user\'s login name."\ncommand = ["whoami"]\n',
  kernel: 'description = "The kernel version."\ncommand = ["uname", "-sr"]\n',
  disk: 'description = "Free space on the home disk."\ncommand = ["df", "-h", "{path}"]\n[params.path]\ndescription = "A folder on the disk"\n',
  memory: 'description = "Free memory."\ncommand = ["free", "-h"]\n',
  calendar: 'description = "A month\'s calendar."\ncommand = ["cal", "{month}", "{year}"]\n[params.month]\ntype = "integer"\n[params.year]\ntype = "integer"\n',
  count: 'description = "Counts the lines of a file."\ncommand = ["wc", "-l", "{file}"]\n[params.file]\ndescription = "The file"\n',
  echo: 'description = "Repeats a text."\ncommand = ["echo", "{text}"]\n[params.text]\ndescription = "What to repeat"\n',
};

interface Setup {
  name: 'full' | 'tools_only';
  configDir: string;
  dataDir: string;
  servers: string[];
}

interface Run {
  /** startHost called to startHost resolved: every server ready. */
  totalMs: number;
  /** startHost called to the first server.state "starting": config read, state database opened. */
  setupMs: number;
  /** Per server: startHost called to its "ready", and its "starting" to its "ready" (spawn, initialize, tools/list). */
  readyMs: Map<string, number>;
  spawnToReadyMs: Map<string, number>;
  closeMs: number;
}

/**
 * Host start-up: `startHost` called until it resolves with every server
 * ready, with ten tool files and one third-party server
 * (@modelcontextprotocol/server-everything over stdio), against the same
 * tool files with the tools server alone. Per server, the time to ready
 * comes from the hub's `server.state` events, stamped on arrival with the
 * monotonic clock (their own `atMs` is whole milliseconds).
 */
export const startup: Benchmark = {
  name: 'startup',
  description: `host start to all servers ready: 10 tool files + server-everything, and the tools server alone, ${RUNS} runs each`,
  run: runStartup,
};

async function runStartup(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const { signal } = options;
  await access(toolsServerPath()).catch((cause: unknown) => {
    throw new AppError('BENCH_NOT_BUILT', `no compiled tools server at ${toolsServerPath()}; run \`npm run build\` first`, { cause });
  });
  const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

  const root = await mkdtemp(join(tmpdir(), 'bench-startup-'));
  try {
    const full = await prepare(root, 'full', `[mcp.${THIRD_PARTY}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(everything)}, "stdio"]\n`);
    const toolsOnly = await prepare(root, 'tools_only', '');
    const setups = [full, toolsOnly];
    const runs = new Map<Setup['name'], Run[]>(setups.map((s) => [s.name, []]));

    // The two setups alternate, one starting first in even rounds and the other in odd ones.
    for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
      for (let k = 0; k < setups.length; k++) {
        signal?.throwIfAborted();
        const setup = setups[(i + k) % setups.length] as Setup;
        const run = await startOnce(setup);
        if (i >= WARMUP_RUNS) runs.get(setup.name)?.push(run);
        process.stderr.write(`startup: ${setup.name} ${i < WARMUP_RUNS ? 'warm-up' : `run ${i - WARMUP_RUNS + 1}/${RUNS}`}: ${run.totalMs.toFixed(1)} ms, closed in ${run.closeMs.toFixed(0)} ms\n`);
      }
    }

    return {
      runs: RUNS,
      warmup_runs: WARMUP_RUNS,
      tool_files: Object.keys(TOOL_FILES).length,
      ...summarize(full, runs.get('full') ?? []),
      ...summarize(toolsOnly, runs.get('tools_only') ?? []),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const BUILTINS_OFF = '[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n[memory]\nenabled = false\n';

async function prepare(root: string, name: Setup['name'], configToml: string): Promise<Setup> {
  const configDir = join(root, name, 'config');
  const dataDir = join(root, name, 'data');
  await mkdir(join(configDir, 'tools'), { recursive: true });
  for (const [tool, text] of Object.entries(TOOL_FILES)) await writeFile(join(configDir, 'tools', `${tool}.toml`), text);
  // Only the servers named here: the built-in adapters and memory are turned off.
  await writeFile(join(configDir, 'config.toml'), `${BUILTINS_OFF}${configToml}`);
  return { name, configDir, dataDir, servers: configToml === '' ? [TOOLS_SERVER_NAME] : [TOOLS_SERVER_NAME, THIRD_PARTY] };
}

/** One start, checked (every server ready), then one close. */
async function startOnce(setup: Setup): Promise<Run> {
  const bus = createAssistantBus();
  const starting = new Map<string, bigint>();
  const ready = new Map<string, bigint>();
  bus.subscribe((event) => {
    if (event.type !== 'server.state') return;
    // The bus delivers synchronously, so this is when the hub changed the state.
    if (event.state === 'starting' && !starting.has(event.server)) starting.set(event.server, now());
    if (event.state === 'ready' && !ready.has(event.server)) ready.set(event.server, now());
  });

  const env: NodeJS.ProcessEnv = { ...getDefaultEnvironment(), DESKTOP_ASSISTANT_DATA_DIR: setup.dataDir };
  const started = now();
  const host = await startHost({ configDir: setup.configDir, env, bus });
  const totalMs = elapsedMs(started);
  let closeMs = 0;
  try {
    const notReady = host.hub.servers().filter((s) => s.state !== 'ready');
    if (notReady.length > 0 || host.hub.servers().length !== setup.servers.length) {
      const why = notReady.map((s) => `${s.name}: ${s.state} (${s.error ?? 'no error'})`).join('; ');
      throw new AppError('BENCH_SERVER_FAILED', `not every server started: ${why || 'a server is missing'}`);
    }
  } finally {
    closeMs = await timeMs(() => host.close());
  }

  const sinceStart = (t: bigint | undefined): number => {
    // A ready server without its events would be a hub bug; a NaN figure would hide it.
    if (t === undefined) throw new AppError('BENCH_EVENT_MISSING', 'a server.state event is missing');
    return Number(t - started) / 1e6;
  };
  const firstStarting = [...starting.values()].reduce<bigint | undefined>((min, t) => (min === undefined || t < min ? t : min), undefined);
  return {
    totalMs,
    setupMs: sinceStart(firstStarting),
    readyMs: new Map(setup.servers.map((s) => [s, sinceStart(ready.get(s))])),
    spawnToReadyMs: new Map(setup.servers.map((s) => [s, sinceStart(ready.get(s)) - sinceStart(starting.get(s))])),
    closeMs,
  };
}

function summarize(setup: Setup, runs: readonly Run[]): Figures {
  const figures: Figures = {};
  const add = (key: string, samples: number[], all = false): void => {
    figures[`${setup.name}_${key}_p50_ms`] = round(p50(samples), 1);
    figures[`${setup.name}_${key}_p95_ms`] = round(p95(samples), 1);
    if (!all) return;
    figures[`${setup.name}_${key}_min_ms`] = round(percentile(samples, 0), 1);
    figures[`${setup.name}_${key}_max_ms`] = round(percentile(samples, 100), 1);
  };
  add('total', runs.map((r) => r.totalMs), true);
  add('setup', runs.map((r) => r.setupMs));
  for (const server of setup.servers) {
    add(`${server}_ready`, runs.map((r) => r.readyMs.get(server) as number));
    add(`${server}_spawn_to_ready`, runs.map((r) => r.spawnToReadyMs.get(server) as number));
  }
  add('close', runs.map((r) => r.closeMs));
  return figures;
}
