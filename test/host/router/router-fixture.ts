import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { configSchema, type Config } from '../../../src/config/index.js';
import { createAssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { ToolRouter, type ConfirmationChannel, type ConfirmationAnswer } from '../../../src/host/router/index.js';
import { openStateDb, SqliteAuditLog, SqlitePinStore, type StateDb } from '../../../src/host/store/index.js';
import { FakeHub } from '../../fakes/fake-hub.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

export interface RouterFixture {
  hub: FakeHub;
  router: ToolRouter;
  audit: SqliteAuditLog;
  events: AssistantEvent[];
  state: StateDb;
  dir: TempDir;
  close(): Promise<void>;
}

/** A router over a fake hub, with a real SQLite audit and pin store in a temp folder. */
export async function routerFixture(configRaw: Record<string, unknown> = {}, hub = new FakeHub(), enabled = true): Promise<RouterFixture> {
  const dir = await makeTempDir('da-router-');
  const state = openStateDb(dir.path);
  const audit = new SqliteAuditLog(state);
  const bus = createAssistantBus();
  const events: AssistantEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const config: Config = configSchema.parse(configRaw);
  let now = 1_000_000;
  const router = new ToolRouter({ hub, config, audit, pins: new SqlitePinStore(state), bus, clock: () => (now += 5), enabled });
  return {
    hub,
    router,
    audit,
    events,
    state,
    dir,
    close: async () => {
      state.close();
      await dir.remove();
    },
  };
}

export function toolDef(name: string, extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object', properties: { place: { type: 'string' }, days: { type: 'integer' } }, required: ['place'] },
    ...extra,
  };
}

/** A channel that answers as told and remembers what it was asked. */
export function scriptedConfirmation(answer: ConfirmationAnswer | 'never'): ConfirmationChannel & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    confirm: (request, { signal }) => {
      asked.push(`${request.tool} ${request.argsSummary}`);
      if (answer === 'never') return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
      return Promise.resolve(answer);
    },
  };
}
