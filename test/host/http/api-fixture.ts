import { configSchema } from '../../../src/config/index.js';
import { createAssistantBus } from '../../../src/events/index.js';
import { ActivityTracker, Conversation } from '../../../src/host/conversation/index.js';
import {
  createApiApp,
  EventLog,
  HttpConfirmations,
  LlmHealth,
  Metrics,
  TurnRunner,
  type ApiApp,
  type ApiDeps,
} from '../../../src/host/http/index.js';
import { OpenAiLlm } from '../../../src/host/llm/index.js';
import { ToolRouter } from '../../../src/host/router/index.js';
import { openStateDb, SqliteAuditLog, SqlitePinStore } from '../../../src/host/store/index.js';
import { FakeHub, textResult } from '../../fakes/fake-hub.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../fakes/scripted-llm-server.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

export const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuvwxyz';
export const PORT = 8765;
export const BASE = `http://127.0.0.1:${PORT}`;

export interface ApiFixture {
  api: ApiApp;
  deps: ApiDeps;
  hub: FakeHub;
  llm: ScriptedLlmServer;
  /** A request as a same-machine client sends it: right Host, the token. */
  call(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The real app with the real router, conversation, event log and audit,
 * over a fake hub (`weather` read, `note` write) and the scripted LLM server.
 */
export async function apiFixture(options: { heartbeatMs?: number; maxBodyBytes?: number } = {}): Promise<ApiFixture> {
  const llm = await startScriptedLlmServer({ split: { seed: 5, maxBytes: 11 } });
  const dir = await makeTempDir('da-api-');
  const state = openStateDb(dir.path);
  const bus = createAssistantBus();
  const config = configSchema.parse({});
  const hub = new FakeHub()
    .addServer({ name: 'tools', trusted: true, builtin: true })
    .addTool('tools', { name: 'weather', description: 'Weather', inputSchema: { type: 'object', properties: { place: { type: 'string' } } }, _meta: { 'desktop-assistant/risk': 'read' } }, (a) =>
      textResult(`Sunny in ${String(a.place)}`),
    )
    .addTool('tools', { name: 'note', description: 'Note', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, _meta: { 'desktop-assistant/risk': 'write' } }, (a) =>
      textResult(`noted ${String(a.text)}`),
    );
  const audit = new SqliteAuditLog(state);
  const router = new ToolRouter({ hub, config, audit, pins: new SqlitePinStore(state), bus, enabled: true });
  const conversation = new Conversation({
    llm: new OpenAiLlm({ baseUrl: llm.url, requestTimeoutMs: 5000, firstTokenTimeoutMs: 5000, idleTimeoutMs: 5000 }),
    router,
    bus,
    systemPrompt: 'test',
    toolRounds: 3,
    languages: ['en'],
  });
  const confirmations = new HttpConfirmations();
  const deps: ApiDeps = {
    version: '9.9.9',
    token: TOKEN,
    bound: () => ({ host: '127.0.0.1', port: PORT }),
    bus,
    router,
    hub,
    audit,
    events: new EventLog(bus),
    activity: new ActivityTracker(bus),
    metrics: new Metrics(bus),
    llmHealth: new LlmHealth(bus, llm.url),
    confirmations,
    turns: new TurnRunner(conversation, confirmations),
    voiceEnabled: false,
    staticFiles: new Map([
      ['index.html', { body: '<!doctype html><title>desktop-assistant</title>', type: 'text/html; charset=utf-8' }],
      ['app.js', { body: 'console.log(1)', type: 'text/javascript; charset=utf-8' }],
    ]),
    sse: { heartbeatMs: options.heartbeatMs ?? 60_000, replayCount: 100 },
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
  };
  const api = createApiApp(deps);
  return {
    api,
    deps,
    hub,
    llm,
    call: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (init.token !== null) headers.set('authorization', `Bearer ${init.token ?? TOKEN}`);
      return Promise.resolve(api.app.request(`${BASE}${path}`, { ...init, headers }));
    },
    close: async () => {
      await api.close();
      await llm.close();
      state.close();
      await dir.remove();
    },
  };
}

/** Reads SSE events from a response body until `until` says stop. */
export async function readSse(response: Response, until: (events: { event: string; data: Record<string, unknown>; id: string }[]) => boolean) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: { event: string; data: Record<string, unknown>; id: string }[] = [];
  let buffer = '';
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
      if (fields.data) events.push({ event: fields.event ?? 'message', id: fields.id ?? '', data: JSON.parse(fields.data) });
    }
  }
  await reader.cancel();
  return events;
}
