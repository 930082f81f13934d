import { randomUUID } from 'node:crypto';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../src/errors/index.js';
import { createAssistantBus } from '../src/events/index.js';
import { toolsServerPath, type ToolHub } from '../src/host/hub/index.js';
import { noConfirmationChannel, ToolRouter } from '../src/host/router/index.js';
import { startHost, type Host } from '../src/host/runtime.js';
import { SqliteAuditLog, SqlitePinStore, summarizeArguments, type AuditLog, type AuditRecord } from '../src/host/store/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { distribution, elapsedMs, now, p50, p95, round, timeMs } from '../test/support/stats.js';
import { requireSuccess, spawnDate } from './lib/spawn-date.js';

const CALLS = 500;
/** Discarded rounds: the JIT, ajv's schema compile, the page cache and the first-call paths settle. */
const WARMUP_CALLS = 10;
const CALL_TIMEOUT_MS = 10_000;
const PROGRESS_EVERY = 100;
/** The project's goal for a routed call against spawning the program directly, at the median. */
const GOAL_RATIO_P50 = 1.2;
/** What `date` prints, for the arms that do not run it: the same length of output to redact and audit. */
const CANNED_DATE = 'Mon Nov 30 12:27:00 UTC 2026';

/**
 * `date` through the whole host path (Tool Router, MCP hub, tools server,
 * fork/exec) against Node spawning `date` itself, with four more arms that
 * split the difference: the hub alone (no router), the router over a hub
 * that answers at once (the router's own work, audit included, without any
 * I/O to a server), the same without the audit, and the audit INSERT alone.
 */
export const routedCall: Benchmark = {
  name: 'routed-call',
  description: `a routed call of \`date\` (router + hub + tools server) vs spawning \`date\` directly, ${CALLS} calls each`,
  run: runRoutedCall,
};

async function runRoutedCall(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const { signal } = options;
  await access(toolsServerPath()).catch((cause: unknown) => {
    throw new AppError('BENCH_NOT_BUILT', `no compiled tools server at ${toolsServerPath()}; run \`npm run build\` first`, { cause });
  });

  const configDir = await mkdtemp(join(tmpdir(), 'bench-routed-call-config-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-routed-call-data-'));
  // The tools server inherits the host's whole environment and hands it to
  // `date`; the direct arm gets the same one, so both exec the same thing.
  const env: NodeJS.ProcessEnv = { ...getDefaultEnvironment(), DESKTOP_ASSISTANT_DATA_DIR: dataDir };
  let host: Host | undefined;
  try {
    await mkdir(join(configDir, 'tools'));
    await writeFile(join(configDir, 'tools', 'date.toml'), 'description = "The current date and time."\ncommand = ["date"]\n');

    const started = now();
    host = await startHost({ configDir, env });
    const hostStartMs = elapsedMs(started);
    const tools = host.hub.servers().find((s) => s.name === 'tools');
    if (tools?.state !== 'ready') throw new AppError('BENCH_SERVER_FAILED', `the tools server is not ready: ${tools?.error ?? 'missing'}`);
    process.stderr.write(`routed-call: host started in ${hostStartMs.toFixed(1)} ms\n`);

    const arms = armsFor(host, env);
    const names = Object.keys(arms) as ArmName[];
    const samples = new Map<ArmName, number[]>(names.map((name) => [name, []]));
    // Each round runs every arm once, in a fresh random order: drift falls on
    // all arms alike, and no arm always comes right after the same one.
    // tool-call's rotation keeps one arm right after `direct` in most rounds,
    // and that arm pays for the fork: after one, this process takes a
    // copy-on-write fault on each page it writes.
    const measureRound = async (keep: boolean): Promise<void> => {
      signal?.throwIfAborted();
      for (const name of shuffled(names)) {
        const ms = await timeMs(arms[name]);
        if (keep) samples.get(name)?.push(ms);
      }
    };

    for (let i = 0; i < WARMUP_CALLS; i++) await measureRound(false);
    const measuring = now();
    for (let i = 0; i < CALLS; i++) {
      await measureRound(true);
      if ((i + 1) % PROGRESS_EVERY === 0) process.stderr.write(`routed-call: ${i + 1}/${CALLS} rounds\n`);
    }
    process.stderr.write(`routed-call: measured in ${(elapsedMs(measuring) / 1000).toFixed(1)} s\n`);

    const of = (name: ArmName): number[] => samples.get(name) ?? [];
    const [routed, hub, direct, routerOnly, routerNoAudit, audit] = [
      of('routed'), of('hub'), of('direct'), of('routerOnly'), of('routerNoAudit'), of('audit'),
    ];
    const ratioP50 = p50(routed) / p50(direct);
    return {
      calls: CALLS,
      warmup_calls: WARMUP_CALLS,
      host_start_ms: round(hostStartMs),
      ...distribution('routed', routed, true),
      ...distribution('hub', hub),
      ...distribution('direct', direct, true),
      ...distribution('router_only', routerOnly),
      ...distribution('router_no_audit', routerNoAudit),
      ...distribution('audit_insert', audit),
      router_overhead_p50_ms: round(p50(routed) - p50(hub)),
      hub_overhead_p50_ms: round(p50(hub) - p50(direct)),
      hub_ratio_p50: round(p50(hub) / p50(direct), 2),
      ratio_p50: round(ratioP50, 2),
      ratio_p95: round(p95(routed) / p95(direct), 2),
      goal_ratio_p50: GOAL_RATIO_P50,
      // Figures hold numbers and strings only: the verdict is the string "true" or "false".
      meets_goal: String(ratioP50 <= GOAL_RATIO_P50),
    };
  } finally {
    // Stops the tools server (stdin closed, then SIGTERM, then SIGKILL) and closes the state database.
    // Clean-up after the figures: a host that fails to close changes none of them.
    await host?.close().catch(() => undefined);
    await rm(configDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
}

type ArmName = 'routed' | 'hub' | 'direct' | 'routerOnly' | 'routerNoAudit' | 'audit';

/**
 * The six arms. No arm gets the run's
 * signal: it is checked between rounds, and CALL_TIMEOUT_MS (or the tool's
 * own timeout, on the routed path) bounds a stuck call.
 */
function armsFor(host: Host, env: NodeJS.ProcessEnv): Record<ArmName, () => Promise<void>> {
  const { router, hub } = host;
  const confirmation = noConfirmationChannel('bench');

  // One turn per call, as one user utterance makes one turn: the per-turn
  // budget (`[router] max_calls`) never runs out, and newTurn's cost counts.
  const routed = async (): Promise<void> => {
    const result = await router.call(router.newTurn('text', confirmation), { name: 'date', arguments: {} });
    // A refusal or an error result is fast and would flatter the router: refuse to time it.
    if (result.status !== 'ok') throw new AppError('BENCH_TOOL_FAILED', `the routed date call ended ${result.status}`, { cause: result.text });
  };

  const viaHub = async (): Promise<void> => {
    requireSuccess(await hub.callTool('date', {}, { timeoutMs: CALL_TIMEOUT_MS }));
  };

  const direct = (): Promise<void> => spawnDate(env, CALL_TIMEOUT_MS);

  // The same router code, config and state database over a hub that answers
  // at once: lookup, validation, policy, budget, output handling, the audit
  // INSERT and the events, with no process or pipe in the way; and once more
  // with an audit log that keeps nothing, which leaves the router's own CPU.
  const instantHub: ToolHub = {
    tools: () => hub.tools(),
    servers: () => hub.servers(),
    callTool: async (): Promise<CallToolResult> => ({ content: [{ type: 'text', text: CANNED_DATE }] }),
    onToolsChanged: () => () => undefined,
  };
  const routerOver = (audit: AuditLog): (() => Promise<void>) => {
    const bare = new ToolRouter({ hub: instantHub, config: host.config, audit, pins: new SqlitePinStore(host.state), bus: createAssistantBus(), enabled: true });
    return async () => {
      const result = await bare.call(bare.newTurn('text', confirmation), { name: 'date', arguments: {} });
      if (result.status !== 'ok') throw new AppError('BENCH_TOOL_FAILED', `the instant-hub call ended ${result.status}`, { cause: result.text });
    };
  };
  const routerOnly = routerOver(new SqliteAuditLog(host.state));
  const routerNoAudit = routerOver({ record: () => undefined, begin: () => 0, complete: () => undefined, recent: () => [] });

  // The row the router writes for a successful `date` call, into the same
  // database file (WAL, synchronous=FULL: a commit waits for the disk).
  const audit = new SqliteAuditLog(host.state);
  const { hash, summary } = summarizeArguments({});
  const auditInsert = async (): Promise<void> => {
    const record: AuditRecord = {
      atMs: Date.now(),
      turnId: randomUUID(),
      entry: 'text',
      tool: 'date',
      server: 'tools',
      risk: 'read',
      decision: 'allow',
      decidedBy: 'policy',
      status: 'ok',
      durationMs: 2,
      argsHash: hash,
      argsSummary: summary,
      outputChars: CANNED_DATE.length,
      truncated: false,
    };
    audit.record(record);
  };

  return { routed, hub: viaHub, direct, routerOnly, routerNoAudit, audit: auditInsert };
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
