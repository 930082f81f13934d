import { parseArgs } from 'node:util';
import { isMemoryKind, MEMORY_KINDS, type MemoryHealth, type MemoryKind, type MemoryRecord, type ScoredMemory } from '../../../memory/index.js';
import { UsageError, type CliCommand, type CliIo } from '../command.js';
import { withMemoryStore } from './memory-store-access.js';

const DEFAULT_LIST = 20;
const DEFAULT_K = 5;

export const memoryListCommand: CliCommand = {
  name: 'memory list',
  usage: 'desktop-assistant memory list [--kind KIND] [--limit N] [--json] [--config-dir DIR]',
  summary: `saved memories, newest first (default ${DEFAULT_LIST})`,
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { ...COMMON, kind: { type: 'string' }, limit: { type: 'string' } } });
    const request = { limit: wholeNumber(values.limit, '--limit', DEFAULT_LIST, 100_000), ...kindOf(values.kind) };
    const { records, health } = await withMemoryStore(io, values['config-dir'], (store) => ({ records: store.list(request), health: store.health() }), { writes: false });
    write(io, records, health, values.json === true, 'no memories saved yet');
    return 0;
  },
};

export const memorySearchCommand: CliCommand = {
  name: 'memory search',
  usage: 'desktop-assistant memory search [--k N] [--kind KIND] [--json] [--config-dir DIR] QUERY...',
  summary: `the memories closest to QUERY, with their scores (default ${DEFAULT_K})`,
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, options: { ...COMMON, k: { type: 'string' }, kind: { type: 'string' } }, allowPositionals: true });
    const query = positionals.join(' ').trim();
    if (query === '') throw new UsageError('give the words to search for');
    const request = { query, k: wholeNumber(values.k, '--k', DEFAULT_K, 100), ...kindOf(values.kind) };
    const { records, health } = await withMemoryStore(io, values['config-dir'], async (store) => ({ records: await store.search(request), health: store.health() }), { writes: false });
    write(io, records, health, values.json === true, 'no memory matches');
    return 0;
  },
};

export const memoryForgetCommand: CliCommand = {
  name: 'memory forget',
  usage: 'desktop-assistant memory forget [--config-dir DIR] ID...',
  summary: 'forget memories by id, for good',
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } }, allowPositionals: true });
    if (positionals.length === 0) throw new UsageError('give the id of at least one memory (see desktop-assistant memory list)');
    const ids = positionals.map((text) => wholeNumber(text, 'an id', 0, Number.MAX_SAFE_INTEGER));
    const missing = await withMemoryStore(io, values['config-dir'], (store) => ids.filter((id) => !store.forget(id)), { writes: true });
    for (const id of ids) if (!missing.includes(id)) io.stdout.write(`forgot memory #${id}\n`);
    for (const id of missing) io.stderr.write(`desktop-assistant: there is no memory #${id}\n`);
    return missing.length === 0 ? 0 : 1;
  },
};

export const memoryRebuildCommand: CliCommand = {
  name: 'memory rebuild',
  usage: 'desktop-assistant memory rebuild [--config-dir DIR]',
  summary: 'rebuild the memory index from the database (after a health error, or to re-sign changed records)',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } } });
    const { report, health } = await withMemoryStore(io, values['config-dir'], async (store, progress) => ({ report: await store.rebuild({ log: io.stderr, onProgress: progress }), health: store.health() }), { writes: true });
    io.stdout.write(
      `rebuilt the index of ${report.records} memories in ${report.durationMs} ms (embedder ${report.embedder}; ` +
        `${report.reembedded} vectors computed again, ${report.resigned} records signed again)\n`,
    );
    writeHealth(io, health);
    return health.ok ? 0 : 1;
  },
};

export const memoryStatusCommand: CliCommand = {
  name: 'memory status',
  usage: 'desktop-assistant memory status [--json] [--config-dir DIR]',
  summary: 'how many memories there are and whether the index matches them (exit 1 when not)',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: COMMON });
    const { health, path } = await withMemoryStore(io, values['config-dir'], (store) => ({ health: store.health(), path: store.path }), { writes: false });
    if (values.json) io.stdout.write(`${JSON.stringify({ path, ...health })}\n`);
    else {
      io.stdout.write(`${path}: ${health.records} memories, ${health.verified} verified against the index (${health.index} search)\n`);
      writeHealth(io, health);
    }
    return health.ok ? 0 : 1;
  },
};

export const MEMORY_COMMANDS: CliCommand[] = [memoryListCommand, memorySearchCommand, memoryForgetCommand, memoryRebuildCommand, memoryStatusCommand];

const COMMON = { 'config-dir': { type: 'string' }, json: { type: 'boolean' } } as const;

function write(io: CliIo, records: (MemoryRecord | ScoredMemory)[], health: MemoryHealth, json: boolean, empty: string): void {
  if (json) {
    for (const record of records) io.stdout.write(`${JSON.stringify(record)}\n`);
  } else if (records.length === 0) {
    io.stdout.write(`${empty}\n`);
  } else {
    for (const r of records) {
      const score = 'score' in r ? ` ${r.score.toFixed(3)}` : '';
      io.stdout.write(`#${r.id}${score} [${r.kind}] ${new Date(r.createdMs).toISOString().slice(0, 10)} ${oneLine(r.text)}${r.sensitivity === 'sensitive' ? ' (sensitive)' : ''}\n`);
    }
  }
  if (!health.ok) writeHealth(io, health);
}

function writeHealth(io: CliIo, health: MemoryHealth): void {
  for (const note of health.notes) io.stderr.write(`memory: ${note}\n`);
  if (!health.ok) io.stderr.write(`memory health: ${health.problems.join('; ')}\n`);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function wholeNumber(text: string | undefined, name: string, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) throw new UsageError(`${name} must be a whole number from 1 to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

function kindOf(text: string | undefined): { kind?: MemoryKind } {
  if (text === undefined) return {};
  if (!isMemoryKind(text)) throw new UsageError(`--kind must be one of ${MEMORY_KINDS.join(', ')}, not ${JSON.stringify(text)}`);
  return { kind: text };
}
