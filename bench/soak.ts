/**
 * The soak (issue 25): the real daemon in full duplex on a private
 * PulseAudio room (bench/lib/room.ts) for SOAK_MINUTES (60 for the record),
 * with the realistic scripted LLM, a recorded question every few seconds
 * (one in four a tool call to the `now` tool file, one in ten a memory
 * save, every fifth reply talked over), two pages following /events that
 * come and go, and an editor on /mcp listing and calling tools.
 *
 * Every 10 s a sample: RSS, descriptors and descendants from /proc; V8
 * heap and event-loop delay p99 (since the previous sample) from the
 * daemon's /metrics; turn latency from the room's recording (end of
 * speech on the microphone channel to the answer's first sound on the
 * speaker channel: one clock). Descriptors and children are also counted
 * at a quiet moment at the end of the warm-up and at the end (no turn, no
 * reply playing, no page connected, idle keep-alive sockets closed), and
 * those two censuses are what "flat" compares. Written to SOAK_RESULTS
 * (default bench-results/soak/): soak.json, soak.svg, soak.png.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { configProblem, daemonEnv, startDaemonProcess, type DaemonProcess } from './lib/daemon-process.js';
import { addRoom, asoundrc, RoomRecorder, type Room } from './lib/room.js';
import { REALISTIC_LLM } from './lib/scripted-llm.js';
import { startSoakClients, type SoakClients } from './lib/soak-clients.js';
import { sampleRow, sampleTable, SOAK_GOALS, soakFigures, soakPlan, type SoakCensus, type SoakPlan, type SoakTurn } from '../test/support/soak-figures.js';
import { startSoakLlm, type SoakLlm } from './lib/soak-llm.js';
import { renderPng, soakSvg } from './lib/soak-plot.js';
import { findChildPid } from './lib/soak-proc.js';
import { SoakSampler } from './lib/soak-sampler.js';
import { SoakTurns, type SoakQuestion, type SoakTurnResult } from './lib/soak-turns.js';
import { soakRunFigures } from './lib/soak-report.js';
import { startPulse, type PulseServer } from '../test/support/pulse-server.js';
import { cardsClips, librivoxClips } from '../test/support/speech-clips.js';
import { round } from '../test/support/stats.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 60);
const RESULTS = resolve(process.env.SOAK_RESULTS ?? 'bench-results/soak');
/** A real tool server: the tools MCP server with the example `now` tool file (runs `date`). */
const NOW_TOOL = fileURLToPath(new URL('../../examples/tools/now.toml', import.meta.url));
/** Above the daemon's 5 s keep-alive: idle HTTP sockets are closed before a census. */
const SETTLE_MS = 6_000;

export const soak: Benchmark = {
  name: 'soak',
  description: 'the daemon in full duplex for SOAK_MINUTES (default 60): turns, tool calls, memory saves, barge-ins, pages and an editor; RSS, heap, descriptors, children, event-loop delay and turn latency every 10 s',
  run: runSoak,
};

interface Running {
  daemon: DaemonProcess;
  pid: number;
  token: string;
  llm: SoakLlm;
}

async function runSoak(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const plan = soakPlan(MINUTES);
  const figures: Figures = { minutes: MINUTES, warm_up_s: plan.warmUpS, window_s: plan.windowS, load_average_1m_start: round(loadavg()[0]!, 2) };
  const pulse = await startPulse();
  if (!pulse.ok) return { ...figures, skipped: pulse.reason };
  const root = await mkdtemp(join(tmpdir(), 'bench-soak-'));
  const cleanups: Array<() => Promise<unknown>> = [() => rm(root, { recursive: true, force: true }), () => pulse.server.stop()];
  try {
    const room = await addRoom(pulse.server, 'soak_room');
    const home = join(root, 'home');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, '.asoundrc'), asoundrc([room]));
    const recorder = await RoomRecorder.start(pulse.server, room);
    cleanups.unshift(() => recorder.stop());
    const llm = await startSoakLlm({ profile: REALISTIC_LLM, toolName: 'now', memorySaveName: 'memory_save' });
    cleanups.unshift(() => llm.close());
    const started = await startSoakDaemon(root, home, room, pulse.server, llm);
    if (typeof started === 'string') return { ...figures, skipped: started };
    cleanups.unshift(() => started.daemon.stop());
    const clients = await startSoakClients(started.daemon.url, started.token, 'now');
    cleanups.unshift(() => clients.close());
    const questions = await loadQuestions(root);
    return { ...figures, ...(await soakLoop(plan, started, clients, { pulse: pulse.server, room, recorder, questions }, options.signal)) };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => process.stderr.write(`  soak: cleanup: ${String(error)}\n`));
  }
}

async function startSoakDaemon(root: string, home: string, room: Room, pulse: PulseServer, llm: SoakLlm): Promise<Running | string> {
  const configDir = join(root, 'config');
  const runtime = join(root, 'runtime');
  await mkdir(join(configDir, 'tools'), { recursive: true });
  await mkdir(runtime, { recursive: true, mode: 0o700 });
  await copyFile(NOW_TOOL, join(configDir, 'tools', 'now.toml'));
  await writeFile(
    join(configDir, 'config.toml'),
    [
      'mode = "full_duplex_agent"',
      `llm = "${llm.url}"`,
      '[stt]',
      'engine = "pocketsphinx"',
      '[tts]',
      'engine = "espeak"',
      '[audio]',
      `input = "${room.micSource}"`,
      `output = "${room.speakerSink}"`,
      '[http]',
      'port = 0',
      '[memory]',
      'enabled = true',
      '[adapters.browser]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  const env = daemonEnv({ ...pulse.env, HOME: home, XDG_RUNTIME_DIR: runtime, DESKTOP_ASSISTANT_DATA_DIR: join(root, 'data') });
  const problem = await configProblem(configDir, env);
  if (problem) return problem;
  const started = await startDaemonProcess(configDir, env);
  if (!started.ok) return started.reason;
  const pid = findChildPid(process.pid, configDir);
  const token = (await readFile(join(runtime, 'desktop-assistant', 'api-token'), 'utf8')).trim();
  if (pid === undefined) {
    await started.daemon.stop();
    return 'the daemon runs but its process was not found in /proc';
  }
  return { daemon: started.daemon, pid, token, llm };
}

async function loadQuestions(root: string): Promise<SoakQuestion[]> {
  const clips = [...(await cardsClips()), ...(await librivoxClips())];
  // Interleaved, so short card names and 3-7 s book sentences alternate.
  const cards = clips.slice(0, 5);
  const books = clips.slice(5);
  const ordered = cards.flatMap((c, i) => (books[i] ? [c, books[i]] : [c]));
  return Promise.all(
    ordered.map(async (clip) => {
      const rawFile = join(root, `${clip.name.replace(/[^\w-]/g, '_')}.raw`);
      await writeFile(rawFile, Buffer.from(clip.samples.buffer, clip.samples.byteOffset, clip.samples.byteLength));
      return { name: clip.name, rawFile };
    }),
  );
}

interface Stage {
  pulse: PulseServer;
  room: Room;
  recorder: RoomRecorder;
  questions: readonly SoakQuestion[];
}

async function soakLoop(plan: SoakPlan, running: Running, clients: SoakClients, stage: Stage, signal: AbortSignal | undefined): Promise<Figures> {
  const startedAtMs = Date.now();
  const { daemon, pid, token, llm } = running;
  const answered: SoakTurn[] = [];
  const results: SoakTurnResult[] = [];
  const turns = new SoakTurns({ ...stage, daemon, llm, startedAtMs, ...(signal ? { signal } : {}) });
  const ports = { http: Number(new URL(daemon.url).port), llm: Number(new URL(llm.url).port) };
  const sampler = new SoakSampler({ pid, ports, url: daemon.url, token, startedAtMs, turns: answered }, (s) => process.stderr.write(`  soak: ${sampleRow(s).join('  ')}\n`));
  const censuses: { warmUp?: SoakCensus; end?: SoakCensus } = {};
  const census = async (): Promise<SoakCensus> => {
    await clients.pause();
    await turns.quiet();
    await sleep(SETTLE_MS, undefined, { signal });
    const counted = sampler.census();
    clients.resume();
    process.stderr.write(`  soak: census at ${Math.round(counted.atS)} s: ${counted.fds} descriptors (${counted.fdNames}), ${counted.children} children (${counted.childNames})\n`);
    return counted;
  };
  let interrupted: unknown;
  await sampler.start();
  try {
    while (Date.now() - startedAtMs < plan.durationS * 1000 && !daemon.exited) {
      if (!censuses.warmUp && Date.now() - startedAtMs >= plan.warmUpS * 1000 && !turns.bargeInPending) censuses.warmUp = await census();
      const result = await turns.next();
      results.push(result);
      if (!result.bargeIn && result.latencyMs !== undefined && result.latencyMs >= 0) answered.push({ atS: result.atS, latencyMs: result.latencyMs });
      const outcome = result.latencyMs === undefined ? `no answer (${result.why})` : `${Math.round(result.latencyMs)} ms`;
      process.stderr.write(`  soak: turn ${result.index + 1} ${result.kind}${result.bargeIn ? ` over the reply (${result.interrupted ? 'interrupted' : 'not interrupted'})` : ''} ${result.clip}: ${outcome}\n`);
    }
    if (!daemon.exited) censuses.end = await census();
  } catch (error) {
    // Ctrl-C or an abort: the samples so far are still written, then the error goes up.
    if (!signal?.aborted) throw error;
    interrupted = error;
  } finally {
    await sampler.stop();
  }
  const record = { plan, samples: sampler.samples, turns: answered, ...(censuses.warmUp ? { warmUpCensus: censuses.warmUp } : {}), ...(censuses.end ? { endCensus: censuses.end } : {}) };
  const figures = { ...soakFigures(record), ...soakRunFigures({ results, events: daemon.events, llm: llm.counts(), clients: clients.counts(), censuses }), ...(daemon.exited ? { daemon_exited: daemon.exited } : {}), ...(sampler.failure ? { sample_failure: sampler.failure } : {}) };
  process.stderr.write(`\n${sampleTable(sampler.samples)}\n\n${goalLines(figures).join('\n')}\n\n`);
  await writeResults(plan, record, results, censuses, figures, interrupted !== undefined);
  if (interrupted !== undefined) throw interrupted;
  return { ...figures, load_average_1m_end: round(loadavg()[0]!, 2), results: RESULTS };
}

/** The issue's figures beside their goals, in words. */
function goalLines(f: Figures): string[] {
  return [
    `  after the warm-up: RSS growth ${f.rss_growth_pct}% (goal <= ${SOAK_GOALS.rssGrowthPct}%; slope ${f.rss_slope_mib_per_hour} MiB/h), heap growth ${f.heap_growth_pct}% (goal <= ${SOAK_GOALS.heapGrowthPct}%)`,
    `  descriptors ${f.fds_warm_up} -> ${f.fds_end}, children ${f.children_warm_up} -> ${f.children_end} (goal: equal)`,
    `  event-loop delay p99, worst 10 s: ${f.loop_delay_p99_max_ms} ms (goal <= ${SOAK_GOALS.loopDelayP99Ms} ms)`,
    `  turn latency p95, first and last window: ${f.turn_latency_p95_first_window_ms} and ${f.turn_latency_p95_last_window_ms} ms, ${f.turn_latency_drift_pct}% (goal within ${SOAK_GOALS.latencyDriftPct}%)`,
    `  goals missed: ${f.goals_missed}`,
  ];
}

async function writeResults(plan: SoakPlan, record: Parameters<typeof soakFigures>[0], results: readonly SoakTurnResult[], censuses: object, figures: Figures, aborted: boolean): Promise<void> {
  await mkdir(RESULTS, { recursive: true });
  await writeFile(join(RESULTS, 'soak.json'), JSON.stringify({ aborted, plan, figures, censuses, samples: record.samples, turns: results }, null, 1));
  const minutes = round(((record.samples.at(-1)?.atS ?? 0) / 60), 1);
  const svg = soakSvg(record.samples, record.turns, plan, `desktop-assistant soak: ${minutes} of ${plan.durationS / 60} min, warm-up shaded${aborted ? ' (interrupted)' : ''}`);
  await writeFile(join(RESULTS, 'soak.svg'), svg);
  try {
    await renderPng(svg, join(RESULTS, 'soak.png'));
  } catch (error) {
    process.stderr.write(`  soak: the PNG was not made (the SVG was): ${String(error)}\n`);
  }
  process.stderr.write(`  soak: results in ${RESULTS} (soak.json, soak.svg, soak.png)\n`);
}
