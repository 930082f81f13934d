/**
 * `npm run bench [-- NAME...]`: runs every benchmark, or the named ones.
 * Progress goes to stderr; each benchmark's figures go to stdout as one JSON
 * line, the last it prints, so `npm run bench | tail -n1` or a line-by-line
 * reader gets them without parsing prose.
 */
import { arch, availableParallelism, cpus, platform, release, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { messageOf } from '../src/errors/index.js';
import type { Benchmark } from './lib/benchmark.js';
import { apm } from './apm.js';
import { bargeInRooms } from './barge-in.js';
import { bargeInReplay } from './barge-in-replay.js';
import { bargeInReplayWords } from './barge-in-replay-words.js';
import { browser } from './browser.js';
import { echo } from './echo.js';
import { hostTurn } from './host-turn.js';
import { memory } from './memory.js';
import { partials } from './partials.js';
import { pauses } from './pauses.js';
import { tts } from './tts.js';
import { turn } from './turn.js';
import { turnDaemon } from './turn-daemon.js';
import { vad } from './vad.js';
import { wer } from './wer.js';
import { routedCall } from './routed-call.js';
import { sse } from './sse.js';
import { soak } from './soak.js';
import { startup } from './startup.js';
import { toolCall } from './tool-call.js';
import { mcpSdk } from './mcp-sdk.js';
import { mcpConformance } from './mcp-conformance.js';

/** Every benchmark, in the order a plain `npm run bench` runs them. Add new ones here. */
const BENCHMARKS: readonly Benchmark[] = [toolCall, routedCall, startup, sse, browser, memory, turn, hostTurn, turnDaemon, vad, apm, echo, ...bargeInRooms, bargeInReplay, bargeInReplayWords, partials, pauses, tts, wer, soak, mcpSdk, mcpConformance];

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

function machine(): Record<string, string | number> {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    available_parallelism: availableParallelism(),
    memory_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()} ${arch()}`,
    node: process.version,
    date: new Date().toISOString(),
  };
}

function usage(message: string): never {
  const known = BENCHMARKS.map((b) => `  ${b.name}: ${b.description}`).join('\n');
  process.stderr.write(`${message}\nusage: npm run bench [-- NAME...]\nknown benchmarks:\n${known}\n`);
  process.exit(EXIT_USAGE);
}

function select(argv: string[]): readonly Benchmark[] {
  let names: string[];
  try {
    names = parseArgs({ args: argv, allowPositionals: true, strict: true }).positionals;
  } catch (error) {
    usage(messageOf(error));
  }
  if (names.length === 0) return BENCHMARKS;
  // A name is one benchmark, or the family of those named `<name>-...` (barge-in: one per room).
  return names.flatMap((name) => {
    const exact = BENCHMARKS.find((b) => b.name === name);
    if (exact) return [exact];
    const family = BENCHMARKS.filter((b) => b.name.startsWith(`${name}-`));
    return family.length > 0 ? family : usage(`unknown benchmark: ${name}`);
  });
}

async function main(): Promise<number> {
  const selected = select(process.argv.slice(2));
  // First Ctrl-C lets the benchmark stop and clean up (temp folders, servers);
  // a second one is the default: exit at once.
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));

  let failed = 0;
  for (const benchmark of selected) {
    if (controller.signal.aborted) break;
    process.stderr.write(`bench: ${benchmark.name}: ${benchmark.description}\n`);
    const host = machine();
    try {
      const figures = await benchmark.run({ signal: controller.signal });
      process.stdout.write(`${JSON.stringify({ name: benchmark.name, ...figures, machine: host })}\n`);
    } catch (error) {
      failed += 1;
      process.stderr.write(`bench: ${benchmark.name} failed: ${messageOf(error)}\n`);
    }
  }
  return failed > 0 || controller.signal.aborted ? EXIT_FAILED : 0;
}

process.exitCode = await main();
