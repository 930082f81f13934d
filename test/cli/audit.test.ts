import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/index.js';
import { UsageError, type CliIo } from '../../src/host/cli/command.js';
import { auditCommand, localIso } from '../../src/host/cli/commands/audit.js';
import { openStateDb, SqliteAuditLog, type AuditRecord } from '../../src/host/store/index.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { auditRecord } from '../host/store/fixtures.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir('da-cli-audit-');
});
afterEach(() => dir.remove());

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

async function runAudit(argv: string[], dataDir = dir.path): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = sink();
  const err = sink();
  const io: CliIo = { stdin: Readable.from([]), stdout: out.stream, stderr: err.stream, env: { DESKTOP_ASSISTANT_DATA_DIR: dataDir } };
  const code = await auditCommand.run(argv, io);
  return { code, stdout: out.text(), stderr: err.text() };
}

function seed(records: AuditRecord[]): void {
  const state = openStateDb(dir.path);
  try {
    const log = new SqliteAuditLog(state);
    for (const record of records) log.record(record);
  } finally {
    state.close();
  }
}

const T0 = Date.UTC(2025, 2, 1, 12, 0, 0);

describe('desktop-assistant audit', () => {
  it('says so when nothing was recorded, and creates no file to say it', async () => {
    const dataDir = join(dir.path, 'fresh');
    const run = await runAudit(['--config-dir', dir.path], dataDir);
    expect(run).toEqual({ code: 0, stdout: `no tool calls recorded yet in ${join(dataDir, 'state.sqlite')}\n`, stderr: '' });
    expect(existsSync(dataDir)).toBe(false);
  });

  it('says so for a database with no records', async () => {
    openStateDb(dir.path).close();
    const run = await runAudit([]);
    expect(run.stdout).toBe(`no tool calls recorded yet in ${join(dir.path, 'state.sqlite')}\n`);
  });

  it('lists the records newest first, one aligned line each', async () => {
    seed([
      auditRecord({ atMs: T0, tool: 'weather', argsSummary: '{"city":"Berlin"}' }),
      auditRecord({
        atMs: T0 + 60_000,
        entry: 'mcp',
        tool: 'write_file',
        server: 'filesystem',
        risk: 'write',
        decision: 'confirm',
        decidedBy: 'user',
        status: 'error',
        durationMs: 1234.4,
        outputChars: 20000,
        truncated: true,
        argsSummary: '{"path":"/tmp/x"}',
        detail: 'disk full',
      }),
      auditRecord({ atMs: T0 + 120_000, tool: 'now', decision: 'deny', decidedBy: 'timeout', status: 'refused', durationMs: 0, outputChars: 0 }),
    ]);
    const run = await runAudit([]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^TIME\s+ENTRY\s+TOOL\s+SERVER\s+RISK\s+DECISION\s+STATUS\s+DURATION\s+OUTPUT\s+ARGS$/);
    expect(lines[1]?.startsWith(localIso(T0 + 120_000))).toBe(true);
    expect(lines[1]).toMatch(/\bnow\b.*\bdeny by timeout\b.*\brefused\b.*\b0 ms\b.*\b0 chars\b/);
    expect(lines[2]).toMatch(
      /\bmcp\b.*\bwrite_file\b.*\bfilesystem\b.*\bwrite\b.*\bconfirm by user\b.*\berror\b.*\b1234 ms\b.*\b20000 chars \(truncated\)\s+\{"path":"\/tmp\/x"\}  \(disk full\)$/,
    );
    expect(lines[3]).toMatch(/\bweather\b.*\ballow by policy\b.*\bok\b.*\b412 ms\b.*\b1873 chars\s+\{"city":"Berlin"\}$/);
    // Aligned: every column starts at the same place on every line.
    const start = (line: string | undefined, word: string): number => line?.indexOf(word) ?? -1;
    expect(new Set([start(lines[0], 'TOOL'), start(lines[1], 'now'), start(lines[2], 'write_file'), start(lines[3], 'weather')]).size).toBe(1);
    expect(new Set(lines.map((line) => line.indexOf('{') < 0 ? line.indexOf('ARGS') : line.indexOf('{'))).size).toBe(1);
  });

  it('shows the local time with its offset', () => {
    expect(localIso(T0)).toMatch(/^2025-03-0[12]T\d\d:\d\d:00[+-]\d\d:\d\d$/);
    const parsed = Date.parse(localIso(T0));
    expect(parsed).toBe(T0);
  });

  it('takes --limit', async () => {
    seed([1, 2, 3, 4, 5].map((i) => auditRecord({ atMs: T0 + i, tool: `tool${i}` })));
    const run = await runAudit(['--limit', '2']);
    const tools = run.stdout.trimEnd().split('\n').slice(1).map((line) => /\btool\d\b/.exec(line)?.[0]);
    expect(tools).toEqual(['tool5', 'tool4']);
  });

  it('writes one JSON object a line with --json', async () => {
    const records = [auditRecord({ atMs: T0, tool: 'a' }), auditRecord({ atMs: T0 + 1, tool: 'b', detail: 'why' })];
    seed(records);
    const run = await runAudit(['--json']);
    const parsed = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
    expect(parsed).toEqual([
      { id: 2, ...records[1] },
      { id: 1, ...records[0] },
    ]);
  });

  it('writes nothing with --json when nothing was recorded', async () => {
    expect((await runAudit(['--json'])).stdout).toBe('');
  });

  it.each([['0'], ['-1'], ['abc'], ['1001'], ['2.5'], ['']])('refuses --limit %j as a usage error', async (limit) => {
    await expect(runAudit([`--limit=${limit}`])).rejects.toThrow(UsageError);
  });

  it('takes a missing --limit value as a usage error too (main prints the usage for ERR_PARSE_ARGS_*)', async () => {
    await expect(runAudit(['--limit'])).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_PARSE_ARGS/) });
  });

  it('refuses an unknown option the way every command does', async () => {
    await expect(runAudit(['--since', 'x'])).rejects.toMatchObject({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
  });

  it('escapes control characters a server put in a tool name', async () => {
    seed([auditRecord({ tool: 'evil\u001b[2J\nname', server: 'x\u202eyz' })]);
    const run = await runAudit([]);
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).not.toContain('\u202e');
    expect(run.stdout).toContain('evil\\u001b[2J\\u000aname');
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('fails with STATE_DB_CORRUPT, naming the file, for a damaged database', async () => {
    await dir.write('state.sqlite', 'this is not a database, just text that is long enough to have a header'.repeat(10));
    const error = await runAudit([]).catch((e: unknown) => e);
    expect(isAppError(error, 'STATE_DB_CORRUPT')).toBe(true);
    expect((error as Error).message).toContain(join(dir.path, 'state.sqlite'));
  });
});
