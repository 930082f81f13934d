import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/index.js';
import { AppError } from '../../../src/errors/index.js';
import { createAssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { noConfirmationChannel, ToolRouter } from '../../../src/host/router/index.js';
import { openStateDb, SqliteAuditLog, SqlitePinStore, type AuditLog, type AuditRecord, type StateDb } from '../../../src/host/store/index.js';
import { FakeHub, textResult } from '../../fakes/fake-hub.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { toolDef } from './router-fixture.js';

/**
 * The router's audit-failure path, with the audit's writes failing on
 * demand as a full disk fails them (the real one: test/host/http/daemon-disk-full.test.ts).
 */

class FailingAudit implements AuditLog {
  readonly failing = new Set<'begin' | 'complete' | 'record'>();
  constructor(private readonly real: SqliteAuditLog) {}
  private check(step: 'begin' | 'complete' | 'record'): void {
    if (this.failing.has(step)) throw new AppError('STATE_DB_DISK_FULL', 'the state database at /data/state.sqlite cannot be written: no space left on device (SQLITE_FULL)', { retryable: true });
  }
  record(entry: AuditRecord): void {
    this.check('record');
    this.real.record(entry);
  }
  begin(entry: AuditRecord): number {
    this.check('begin');
    return this.real.begin(entry);
  }
  complete(id: number, entry: AuditRecord): void {
    this.check('complete');
    this.real.complete(id, entry);
  }
  recent(limit: number) {
    return this.real.recent(limit);
  }
}

let dir: TempDir;
let state: StateDb;
let audit: FailingAudit;
let hub: FakeHub;
let router: ToolRouter;
let events: AssistantEvent[];
let logged: Array<Record<string, unknown>>;

beforeEach(async () => {
  dir = await makeTempDir('da-audit-unwritable-');
  state = openStateDb(dir.path);
  audit = new FailingAudit(new SqliteAuditLog(state));
  hub = new FakeHub().addServer({ name: 'tools', trusted: true, builtin: true }).addTool('tools', toolDef('weather', { _meta: { 'desktop-assistant/risk': 'read' } }), () => textResult('sunny'));
  const bus = createAssistantBus();
  events = [];
  bus.subscribe((event) => events.push(event));
  logged = [];
  const log = { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) };
  router = new ToolRouter({ hub, config: configSchema.parse({}), audit, pins: new SqlitePinStore(state), bus, enabled: true, log });
});
afterEach(async () => {
  state.close();
  await dir.remove();
});

const call = (name = 'weather') => router.call(router.newTurn('text', noConfirmationChannel('a test'), undefined, 'turn-1'), { name, arguments: { place: 'Rome' } });
const errorOf = (text: string) => (JSON.parse(text) as { error: { code: string; message: string } }).error;

describe('a tool call whose audit cannot be written', () => {
  it('does not run: refused with AUDIT_UNWRITABLE naming the file, logged, and an error event for the terminal and the page', async () => {
    audit.failing.add('begin');
    const result = await call();
    expect(result).toMatchObject({ status: 'refused', isError: true });
    expect(errorOf(result.text)).toEqual({
      code: 'AUDIT_UNWRITABLE',
      message: expect.stringMatching(/^weather did not run: a tool call that cannot be audited does not run, and the state database at \/data\/state\.sqlite cannot be written: no space left on device .*free space on that disk/),
    });
    expect(hub.calls).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'error', stage: 'tool', code: 'AUDIT_UNWRITABLE', recoverable: true, turnId: 'turn-1' }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool.ended', status: 'refused' }));
    expect(logged).toEqual([expect.objectContaining({ level: 'error', event: 'audit_unwritable', tool: 'weather', code: 'STATE_DB_DISK_FULL' })]);
    expect(audit.recent(10)).toEqual([]);

    // Nothing is remembered: the next call, with the audit writable, runs and is audited once.
    audit.failing.clear();
    expect(await call()).toMatchObject({ status: 'ok', text: 'sunny' });
    expect(hub.calls).toHaveLength(1);
    expect(audit.recent(10)).toEqual([expect.objectContaining({ tool: 'weather', status: 'ok' })]);
  });

  it('that ran but whose outcome cannot be written: the result stands, the row stays running, the failure is logged', async () => {
    audit.failing.add('complete');
    expect(await call()).toMatchObject({ status: 'ok', text: 'sunny' });
    expect(audit.recent(10)).toEqual([expect.objectContaining({ tool: 'weather', status: 'running', durationMs: 0 })]);
    expect(logged).toEqual([expect.objectContaining({ event: 'audit_write_failed', tool: 'weather', status: 'ok' })]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'error', code: 'AUDIT_UNWRITABLE', message: expect.stringContaining('weather ran, but its outcome was not audited') }));
  });

  it('refused before running, and the refusal cannot be written: still the refusal, never a throw', async () => {
    audit.failing.add('record');
    const result = await call('nope');
    expect(errorOf(result.text).code).toBe('TOOL_UNKNOWN');
    expect(logged).toEqual([expect.objectContaining({ event: 'audit_write_failed', tool: 'nope', status: 'invalid' })]);
  });
});
