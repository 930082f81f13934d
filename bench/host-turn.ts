import { fork } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AssistantEvent } from '../src/events/index.js';
import { noConfirmationChannel } from '../src/host/router/index.js';
import { startHost } from '../src/host/runtime.js';
import { HashedEmbedder, MemoryStore, type MemoryKind, type SaveRequest } from '../src/memory/index.js';
import { seededRandom } from '../test/support/seeded-random.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { benchLlmProfiles, llmFigures, startBenchLlm, type BenchLlmStats, type LlmProfile } from './lib/scripted-llm.js';
import { distribution, p50, p95, round } from '../test/support/stats.js';

/** Memories in the store: a few thousand, as after months of use. */
const RECORDS = 2000;
/** HOST_TURN_PROCESSES=N: at most N processes per arm, for a quick look. */
const MAX_PROCESSES = Number(process.env.HOST_TURN_PROCESSES ?? Number.POSITIVE_INFINITY);
/** Voice arms: processes per arm and memory setting, turns per process (the first of each is the process's first). */
const VOICE_PROCESSES = Math.min(16, MAX_PROCESSES);
const VOICE_TURNS = 4;
/** `ask` arms: one process per turn, the turn asked as soon as the host is up. */
const ASK_PROCESSES = Math.min(20, MAX_PROCESSES);
/** A simulated utterance: partial transcripts this far apart, the final this long after the last one. */
const PARTIAL_EVERY_MS = 100;
const FINAL_AFTER_MS = 200;
const REPLY = 'Sure. Here it is.';
const CHILD_FLAG = '--host-turn-child';
const STAGES = ['turn_setup', 'memory_recall', 'prompt_assembly', 'tool_catalog', 'model_lookup', 'sdk_setup', 'connect_and_send', 'to_server'] as const;
type Stage = (typeof STAGES)[number];

const QUESTIONS = [
  "When is my sister Anna's birthday?",
  'How do I like my coffee?',
  'Where is the boiler code?',
  'What does the atlas project use?',
  'When do I meet Marco?',
  "What's the weather in Rome tomorrow?",
  'Set a timer for ten minutes.',
  'What did I fix in the orion build?',
  "Remind me when my brother Luca's birthday is.",
  'Where did I put the spare keys?',
];

interface ChildJob {
  profile: LlmProfile;
  mode: 'voice' | 'ask';
  memory: boolean;
  anticipate: boolean;
  turns: number;
  dataDir: string;
  root: string;
  first: number;
}

interface TurnSample {
  first: boolean;
  question: string;
  total: number;
  /** From `turn()` called to the reply's first sentence handed to the voice. */
  firstSentence: number;
  stages: Record<Stage, number>;
  memoriesGiven: boolean;
  recalled?: number[];
}

/** What a child process sends back: its turns and what its scripted LLM saw. */
interface ChildResult {
  samples: TurnSample[];
  llm: BenchLlmStats;
}

interface Arm {
  label: string;
  mode: 'voice' | 'ask';
  anticipate: boolean;
  /** The checkout whose dist/bench/host-turn.js the processes run. */
  checkout: string;
}

/**
 * The host's own time in a turn: from `conversation.turn()` being called,
 * as the voice calls it with a final transcript, to the first LLM request
 * arriving at a scripted OpenAI-compatible server that answers at once,
 * stage by stage, and to the reply's first sentence. Each sample runs in a
 * process of its own, as the daemon and `ask` do, so the first turn of a
 * process pays what a first turn pays. Every arm with both LLM profiles of
 * bench/lib/scripted-llm.ts (keys `<profile>_<arm>_...`): `instant` (the
 * host's own time) and `realistic` (300 ms to the first piece, 25 ms per
 * piece: the first sentence comes that much later, the request does not).
 * With HOST_TURN_BASELINE=DIR (a built checkout of an older commit with this
 * file and bench/lib/scripted-llm.ts compiled into it), the same arms of that
 * code run too, interleaved.
 */
export const hostTurn: Benchmark = {
  name: 'host-turn',
  description: `host time from turn() to the LLM request arriving (stages p50/p95) and to the first sentence, memory off and on (${RECORDS} records), voice and ask, instant and realistic LLM`,
  run: runHostTurn,
};

async function runHostTurn(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const here = resolve(fileURLToPath(import.meta.url), '../../..');
  const baseline = process.env.HOST_TURN_BASELINE ? resolve(process.env.HOST_TURN_BASELINE) : undefined;
  if (baseline && !existsSync(childScript(baseline))) throw new Error(`HOST_TURN_BASELINE: no ${childScript(baseline)}; build that checkout with this file in bench/`);
  const checkouts = baseline ? [{ name: 'old', dir: baseline }, { name: 'new', dir: here }] : [{ name: 'new', dir: here }];
  const arms: Arm[] = [];
  for (const { name, dir } of checkouts) {
    arms.push({ label: `voice_${name}`, mode: 'voice', anticipate: false, checkout: dir });
    if (name === 'new') arms.push({ label: 'voice_new_anticipated', mode: 'voice', anticipate: true, checkout: dir });
    arms.push({ label: `ask_${name}`, mode: 'ask', anticipate: false, checkout: dir });
  }

  const profiles = benchLlmProfiles();
  const root = await mkdtemp(join(tmpdir(), 'bench-host-turn-'));
  const samples = new Map<string, TurnSample[]>();
  const llmStats = new Map<string, BenchLlmStats>();
  try {
    // One data folder per checkout (its state database, the same memories), children one at a time.
    const dataDirs = new Map<string, string>();
    for (const { dir } of checkouts) {
      const dataDir = join(root, `data-${dataDirs.size}`);
      await seedMemories(dataDir);
      dataDirs.set(dir, dataDir);
    }
    const jobs: { key: string; arm: Arm; job: ChildJob }[] = [];
    for (let p = 0; p < Math.max(VOICE_PROCESSES, ASK_PROCESSES); p++) {
      for (const profile of profiles) {
        for (const memory of [false, true]) {
          for (const arm of arms) {
            if (p >= (arm.mode === 'voice' ? VOICE_PROCESSES : ASK_PROCESSES)) continue;
            const turns = arm.mode === 'voice' ? VOICE_TURNS : 1;
            const job: ChildJob = { profile, mode: arm.mode, memory, anticipate: arm.anticipate, turns, dataDir: dataDirs.get(arm.checkout) ?? '', root, first: p * turns };
            jobs.push({ key: `${profile.name}_${arm.label}_${memory ? 'memory' : 'no_memory'}`, arm, job });
          }
        }
      }
    }
    let done = 0;
    for (const { key, arm, job } of jobs) {
      options.signal?.throwIfAborted();
      const got = await runChild(childScript(arm.checkout), job);
      samples.set(key, [...(samples.get(key) ?? []), ...got.samples]);
      const sum = llmStats.get(job.profile.name) ?? { requests: 0, aborted: 0, abortedPieces: 0 };
      llmStats.set(job.profile.name, { requests: sum.requests + got.llm.requests, aborted: sum.aborted + got.llm.aborted, abortedPieces: sum.abortedPieces + got.llm.abortedPieces });
      done += 1;
      if (done % 20 === 0) process.stderr.write(`host-turn: ${done} of ${jobs.length} processes\n`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const figures = report(samples, profiles);
  for (const [profile, stats] of llmStats) Object.assign(figures, llmFigures(profile, stats));
  return figures;
}

function childScript(checkout: string): string {
  return join(checkout, 'dist', 'bench', 'host-turn.js');
}

function runChild(script: string, job: ChildJob): Promise<ChildResult> {
  return new Promise((resolveChild, reject) => {
    const child = fork(script, [CHILD_FLAG, JSON.stringify(job)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    let result: ChildResult | undefined;
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('message', (message) => {
      result = message as ChildResult;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && result) resolveChild(result);
      else reject(new Error(`host-turn child exited with ${String(code)}: ${stderr}`));
    });
  });
}

function report(samples: Map<string, TurnSample[]>, profiles: readonly LlmProfile[]): Figures {
  const figures: Figures = {
    records: RECORDS,
    voice_processes: VOICE_PROCESSES,
    voice_turns_per_process: VOICE_TURNS,
    ask_processes: ASK_PROCESSES,
    llm_profiles: profiles.map((p) => `${p.name} (first piece ${p.firstPieceMs} ms, then ${p.pieceMs} ms each)`).join(', '),
  };
  const lines: string[] = [];
  for (const [key, list] of samples) {
    const totals = list.map((s) => s.total);
    Object.assign(figures, distribution(`${key}_total`, totals), distribution(`${key}_first_sentence`, list.map((s) => s.firstSentence)));
    const firsts = list.filter((s) => s.first).map((s) => s.total);
    const later = list.filter((s) => !s.first).map((s) => s.total);
    if (later.length > 0) Object.assign(figures, distribution(`${key}_first_turn_total`, firsts), distribution(`${key}_later_turns_total`, later));
    figures[`${key}_turns`] = list.length;
    figures[`${key}_turns_with_memories`] = list.filter((s) => s.memoriesGiven).length;
    lines.push(`${key} (${list.length} turns): total p50 ${p50(totals).toFixed(2)} / p95 ${p95(totals).toFixed(2)} ms` +
      (later.length > 0 ? `; first turn p50 ${p50(firsts).toFixed(2)} / p95 ${p95(firsts).toFixed(2)}; later p50 ${p50(later).toFixed(2)} / p95 ${p95(later).toFixed(2)}` : ''));
    const cell = (values: number[]): string => `${p50(values).toFixed(3).padStart(8)} ${p95(values).toFixed(3).padStart(8)}`;
    lines.push(`  ${'stage (ms)'.padEnd(17)} ${'p50'.padStart(8)} ${'p95'.padStart(8)}${later.length > 0 ? `  first turn: ${'p50'.padStart(8)} ${'p95'.padStart(8)}` : ''}`);
    for (const stage of STAGES) {
      const values = list.map((s) => s.stages[stage]);
      const firstValues = list.filter((s) => s.first).map((s) => s.stages[stage]);
      Object.assign(figures, distribution(`${key}_${stage}`, values));
      if (later.length > 0) Object.assign(figures, distribution(`${key}_first_turn_${stage}`, firstValues));
      lines.push(`  ${stage.padEnd(17)} ${cell(values)}${later.length > 0 ? `              ${cell(firstValues)}` : ''}`);
    }
  }
  // An anticipated recall must give a turn the memories a turn of its own would have found.
  const recalledBy = (key: string): Map<string, string> => new Map((samples.get(key) ?? []).map((s) => [s.question, JSON.stringify(s.recalled ?? [])]));
  for (const { name } of profiles) {
    const plain = recalledBy(`${name}_voice_new_memory`);
    const anticipated = recalledBy(`${name}_voice_new_anticipated_memory`);
    if (plain.size > 0 && anticipated.size > 0) figures[`${name}_anticipated_same_memories`] = String([...anticipated].every(([q, ids]) => plain.get(q) === ids));
  }
  process.stderr.write(`${lines.join('\n')}\n`);
  return figures;
}

/** Memories like a person's: birthdays, preferences, where things are, projects, meetings, what was fixed. */
async function seedMemories(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const random = seededRandom(20261130);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const people = ['Anna', 'Marco', 'Giulia', 'Luca', 'Sara', 'Paolo', 'Elena', 'Tom', 'Kate', 'David', 'Chiara', 'Omar', 'Mei', 'Jonas'];
  const relations = ['sister', 'brother', 'friend', 'colleague', 'cousin', 'neighbour'];
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  const things = ['boiler code', 'spare keys', 'passport', 'warranty', 'bike lock', 'router password hint', 'tax folder', 'charger'];
  const places = ['drawer', 'folder', 'box', 'shelf', 'cupboard', 'bag'];
  const projects = ['atlas', 'orion', 'juniper', 'kestrel', 'harbor', 'mosaic'];
  const tech = ['TypeScript', 'Rust', 'Python', 'SQLite', 'Postgres', 'React', 'Go'];
  const makers: [MemoryKind, () => string][] = [
    ['fact', () => `My ${pick(relations)} ${pick(people)}'s birthday is on ${pick(months)} ${1 + Math.floor(random() * 28)}`],
    ['preference', () => `I prefer my ${pick(['coffee', 'tea', 'espresso', 'toast', 'pasta'])} ${pick(['black', 'with milk', 'strong', 'without sugar', 'al dente'])} in the ${pick(['morning', 'evening', 'office'])}`],
    ['fact', () => `The ${pick(things)} is in the ${pick(['blue', 'red', 'green', 'top', 'left'])} ${pick(places)} in the ${pick(['study', 'kitchen', 'hall', 'garage'])}`],
    ['project', () => `The ${pick(projects)} project uses ${pick(tech)} and ${pick(tech)}, due in ${pick(months)}`],
    ['note', () => `Meeting with ${pick(people)} every ${pick(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'])} at ${8 + Math.floor(random() * 10)}`],
    ['task_summary', () => `Fixed the ${pick(projects)} build: ${pick(['pinned', 'upgraded', 'removed'])} ${pick(tech)} ${pick(['in CI', 'locally', 'for release'])}`],
  ];
  const batch: SaveRequest[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const [kind, make] = pick(makers);
    batch.push({ text: make(), kind });
  }
  const store = await MemoryStore.open({ dataDir, embedder: new HashedEmbedder(), log: { write: () => true } });
  await store.saveMany(batch);
  // A snapshot, as a store in use has: the processes load it and check it against the records.
  store.close();
}

/** The words of a question said so far, as stable partial transcripts grow: no final punctuation yet. */
function partialsOf(question: string): string[] {
  const words = question.replace(/[.?!]+$/, '').split(' ');
  const steps = Math.min(4, words.length);
  return Array.from({ length: steps }, (_, i) => words.slice(0, Math.ceil(((i + 1) * words.length) / steps)).join(' '));
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One process: the host started as the daemon and `ask` start it, then its turns, timed stage by stage. */
async function child(job: ChildJob): Promise<ChildResult> {
  let marks: Map<string, number> | undefined;
  const mark = (name: string): void => {
    if (marks && !marks.has(name)) marks.set(name, performance.now());
  };
  // The request leaving the client (undici, under fetch) and arriving at the server, in this process.
  diagnostics.subscribe('undici:request:create', (message) => {
    const { request } = message as { request: { method: string; path: string } };
    if (request.path.endsWith('/chat/completions')) mark('request_created');
  });
  diagnostics.subscribe('undici:client:sendHeaders', (message) => {
    const { request } = message as { request: { path: string } };
    if (request.path.endsWith('/chat/completions')) mark('headers_sent');
  });
  diagnostics.subscribe('http.server.request.start', (message) => {
    const { request } = message as { request: IncomingMessage };
    if (request.method === 'POST') mark('arrived');
  });

  const llm = await startBenchLlm(REPLY, job.profile);
  const configDir = await mkdtemp(join(job.root, 'config-'));
  await mkdir(join(configDir, 'tools'));
  await writeFile(
    join(configDir, 'config.toml'),
    `llm = "${llm.url}"\n[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n[memory]\nenabled = ${job.memory}\n`,
  );
  const host = await startHost({ configDir, env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: job.dataDir } });
  let recalled: number[] | undefined;
  let memoriesGiven = false;
  host.bus.subscribe((event: AssistantEvent) => {
    if (event.type === 'turn.started') mark('turn_started');
    else if (event.type === 'memory.recalled') {
      mark('recalled');
      recalled = event.ids;
    } else if (event.type === 'error' && event.stage === 'memory') mark('recalled');
    else if (event.type === 'llm.request') mark('llm_request');
  });
  // Timing wrappers on the host's own objects; the conversation calls them as methods.
  const router = host.router as { offered: () => unknown[] };
  const offered = router.offered.bind(router);
  router.offered = () => {
    mark('catalog_start');
    const tools = offered();
    mark('catalog_end');
    return tools;
  };
  const llmClient = host.llm as unknown as { resolveModel?: (...args: unknown[]) => Promise<string>; stream: (request: { messages: { role: string }[] }, options?: unknown) => unknown };
  if (typeof llmClient.resolveModel === 'function') {
    const resolveModel = llmClient.resolveModel.bind(llmClient);
    llmClient.resolveModel = async (...args) => {
      mark('model_start');
      try {
        return await resolveModel(...args);
      } finally {
        mark('model_end');
      }
    };
  }
  const stream = llmClient.stream.bind(llmClient);
  llmClient.stream = (request, options) => {
    memoriesGiven = request.messages.filter((m) => m.role === 'system').length > 1;
    return stream(request, options);
  };

  const conversation = host.newConversation() as ReturnType<typeof host.newConversation> & { anticipate?: (text: string) => void };
  const samples: TurnSample[] = [];
  try {
    for (let i = 0; i < job.turns; i++) {
      const question = QUESTIONS[(job.first + i) % QUESTIONS.length] ?? '';
      if (job.mode === 'voice') {
        for (const partial of partialsOf(question)) {
          await sleep(PARTIAL_EVERY_MS);
          if (job.anticipate) conversation.anticipate?.(partial);
        }
        await sleep(FINAL_AFTER_MS);
      }
      recalled = undefined;
      memoriesGiven = false;
      marks = new Map();
      const start = performance.now();
      let firstSentence = Number.NaN;
      const onSentence = (): void => {
        if (Number.isNaN(firstSentence)) firstSentence = round(performance.now() - start, 4);
      };
      await conversation.turn(question, { entry: job.mode === 'voice' ? 'voice' : 'text', language: 'en', confirmation: noConfirmationChannel('bench'), onSentence });
      const at = marks;
      marks = undefined;
      samples.push({ first: i === 0, question, memoriesGiven, firstSentence, ...(recalled ? { recalled } : {}), ...stagesOf(at, start) });
    }
  } finally {
    await host.close();
    await llm.close();
  }
  return { samples, llm: llm.stats() };
}

/** Consecutive stages from the marks; one that did not happen takes no time. */
function stagesOf(at: Map<string, number>, start: number): { total: number; stages: Record<Stage, number> } {
  const get = (name: string): number => {
    const t = at.get(name);
    if (t === undefined) throw new Error(`host-turn: no ${name} mark in a turn`);
    return t;
  };
  const turnStarted = get('turn_started');
  const recalled = at.get('recalled') ?? turnStarted;
  const catalogStart = get('catalog_start');
  const llmRequest = get('llm_request');
  const created = get('request_created');
  const modelMs = (at.get('model_end') ?? 0) - (at.get('model_start') ?? 0);
  const stages: Record<Stage, number> = {
    turn_setup: turnStarted - start,
    memory_recall: recalled - turnStarted,
    prompt_assembly: catalogStart - recalled,
    tool_catalog: llmRequest - catalogStart,
    model_lookup: modelMs,
    sdk_setup: created - llmRequest - modelMs,
    connect_and_send: get('headers_sent') - created,
    to_server: get('arrived') - get('headers_sent'),
  };
  for (const stage of STAGES) stages[stage] = round(stages[stage], 4);
  return { total: round(get('arrived') - start, 4), stages };
}

if (process.argv[2] === CHILD_FLAG && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  child(JSON.parse(process.argv[3] ?? '{}') as ChildJob).then(
    (result) => process.send?.(result, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
