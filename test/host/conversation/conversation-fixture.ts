import { configSchema } from '../../../src/config/index.js';
import { createAssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { Conversation } from '../../../src/host/conversation/index.js';
import { OpenAiLlm } from '../../../src/host/llm/index.js';
import { ToolRouter, type ConfirmationChannel } from '../../../src/host/router/index.js';
import { openStateDb, SqliteAuditLog, SqlitePinStore } from '../../../src/host/store/index.js';
import { FakeHub, textResult } from '../../fakes/fake-hub.js';
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedReply } from '../../fakes/scripted-llm-server.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

export const allowAll: ConfirmationChannel = { confirm: async () => ({ answer: 'approved' }) };

/**
 * A conversation over the real OpenAI client talking to the scripted LLM
 * server (arbitrary byte splits), and the real router over a fake hub with
 * a `weather` tool that announces itself.
 */
export async function conversationFixture(replies: ScriptedReply[], options: { toolRounds?: number; routerEnabled?: boolean; llmUrl?: string } = {}) {
  const llmServer: ScriptedLlmServer = await startScriptedLlmServer({ replies, split: { seed: 7, maxBytes: 9 } });
  const dir = await makeTempDir('da-conv-');
  const state = openStateDb(dir.path);
  const bus = createAssistantBus();
  const events: AssistantEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const hub = new FakeHub()
    .addServer({ name: 'tools', trusted: true, builtin: true })
    .addTool(
      'tools',
      {
        name: 'weather',
        description: 'Weather',
        inputSchema: { type: 'object', properties: { place: { type: 'string' } }, additionalProperties: false },
        _meta: { 'desktop-assistant/risk': 'read', 'desktop-assistant/announce': { en: ['Checking the weather.'], it: ['Controllo il meteo.'] } },
      },
      (args) => textResult(`Sunny, 21 degrees in ${String(args.place)}`),
    );
  const config = configSchema.parse({});
  const router = new ToolRouter({ hub, config, audit: new SqliteAuditLog(state), pins: new SqlitePinStore(state), bus, enabled: options.routerEnabled ?? true });
  const llm = new OpenAiLlm({ baseUrl: options.llmUrl ?? llmServer.url, requestTimeoutMs: 5000, firstTokenTimeoutMs: 5000, idleTimeoutMs: 5000 });
  const conversation = new Conversation({
    llm,
    router,
    bus,
    systemPrompt: 'You are a test.',
    toolRounds: options.toolRounds ?? 3,
    languages: ['it', 'en'],
    random: () => 0,
  });
  return {
    conversation,
    bus,
    llmServer,
    hub,
    events,
    audit: new SqliteAuditLog(state),
    close: async () => {
      await llmServer.close();
      state.close();
      await dir.remove();
    },
  };
}
