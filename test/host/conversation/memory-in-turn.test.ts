import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { noConfirmationChannel } from '../../../src/host/router/index.js';
import { startHost, type Host } from '../../../src/host/runtime.js';
import { HashedEmbedder, MemoryStore } from '../../../src/memory/index.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../fakes/scripted-llm-server.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

const ADAPTERS_OFF = '[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n';
let home: TempDir;
let llm: ScriptedLlmServer;
let host: Host | undefined;

async function seed(dataDir: string, texts: [string, 'fact' | 'preference'][]): Promise<void> {
  const store = await MemoryStore.open({ dataDir, embedder: new HashedEmbedder(), log: { write: () => true } });
  for (const [text, kind] of texts) await store.save({ text, kind });
  store.close();
}

async function startWith(extraToml = '', env: Record<string, string> = {}): Promise<Host> {
  await home.write('config/config.toml', `llm = "${llm.url}"\n${ADAPTERS_OFF}${extraToml}`);
  host = await startHost({ configDir: join(home.path, 'config'), env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), ...env } });
  return host;
}

function systemMessages(request: number): string[] {
  return (llm.requests[request]?.messages ?? []).filter((m) => m.role === 'system').map((m) => String(m.content));
}

beforeEach(async () => {
  home = await makeTempDir('da-memory-turn-');
  llm = await startScriptedLlmServer({ split: { seed: 5, maxBytes: 9 } });
  await seed(join(home.path, 'data'), [
    ["My sister's birthday is on March 3", 'fact'],
    ['I prefer my coffee black', 'preference'],
  ]);
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await llm.close();
  await home.remove();
});

describe('memories in a turn', () => {
  it('gives the model the related memory as its own context message, leaves out the unrelated one, keeps it out of history', async () => {
    const started = await startWith();
    const conversation = started.newConversation();
    const events: string[] = [];
    started.bus.subscribe((e) => events.push(e.type));
    llm.enqueue({ text: 'It is on March 3.' }, { text: 'You are welcome.' });

    const first = await conversation.turn("When is my sister's birthday?", { entry: 'text', confirmation: noConfirmationChannel('test') });
    expect(first.reply).toBe('It is on March 3.');
    const [prompt, context] = systemMessages(0);
    expect(prompt).toBe(started.config.system);
    expect(context).toContain("My sister's birthday is on March 3");
    expect(context).not.toContain('coffee');
    expect(events).toContain('memory.recalled');

    // The next turn recalls for its own words only; the history holds what was said, not the memories.
    await conversation.turn('Thanks a lot!', { entry: 'text', confirmation: noConfirmationChannel('test') });
    expect(systemMessages(1)).toEqual([started.config.system]);
    expect(JSON.stringify(conversation.messages)).not.toContain('March 3,');
    expect(conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('recalls once when the question was anticipated from a partial transcript, through the real memory server', async () => {
    const started = await startWith();
    const queries: unknown[] = [];
    const callTool = started.hub.callTool.bind(started.hub);
    started.hub.callTool = (name, args, options) => {
      queries.push(args.query);
      return callTool(name, args, options);
    };
    const conversation = started.newConversation();
    llm.enqueue({ text: 'It is on March 3.' });

    conversation.anticipate("When is my sister's birthday");
    await conversation.turn("When is my sister's birthday?", { entry: 'voice', confirmation: noConfirmationChannel('test') });
    expect(queries).toEqual(["When is my sister's birthday"]);
    expect(systemMessages(0)[1]).toContain("My sister's birthday is on March 3");
  });

  it('starts no memory server and recalls nothing when memory is off', async () => {
    const started = await startWith('', { OWNER_MEMORY_ENABLED: '0' });
    expect(started.hub.servers().map((s) => s.name)).toEqual(['tools']);
    llm.enqueue({ text: 'I do not know.' });
    await started.newConversation().turn("When is my sister's birthday?", { entry: 'text', confirmation: noConfirmationChannel('test') });
    expect(systemMessages(0)).toEqual([started.config.system]);
  });

  it('offers the memory tools to the model under legal names, and a save from the model lands in the store', async () => {
    const started = await startWith();
    const names = started.router.offered().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['memory_search', 'memory_save', 'memory_list']));
    // forget is `write` without the save's exemption: confirm by default, so offered but asked.
    expect(started.router.catalog().find((t) => t.name === 'memory_forget')?.decision).toBe('confirm');
    llm.enqueue({ toolCalls: [{ name: 'memory_save', arguments: '{"text":"The boiler code is in the blue folder","kind":"fact"}' }] }, { text: 'Saved.' });
    const outcome = await started.newConversation().turn('Remember that the boiler code is in the blue folder', { entry: 'text', confirmation: noConfirmationChannel('test') });
    expect(outcome.toolCalls.map((c) => c.status)).toEqual(['ok']);
    expect(started.audit.recent(1)[0]).toMatchObject({ tool: 'memory_save', server: 'memory', decision: 'allow', status: 'ok' });
    const search = await started.hub.callTool('memory_search', { query: 'where is the boiler code', k: 1 });
    expect(JSON.stringify(search.structuredContent)).toContain('The boiler code is in the blue folder');
  });
});
