import { afterEach, describe, expect, it } from 'vitest';
import { refusedUrl } from '../../helpers/http-stub.js';
import { allowAll, conversationFixture } from './conversation-fixture.js';

type Fixture = Awaited<ReturnType<typeof conversationFixture>>;
let f: Fixture;
afterEach(() => f.close());

const weatherCall = { name: 'weather', arguments: '{"place": "Rome"}' };
const toolMessages = (n: number) => f.llmServer.requests[n]!.messages.filter((m) => m.role === 'tool');

describe('a turn', () => {
  it('streams the reply sentence by sentence and keeps user text and reply in history', async () => {
    f = await conversationFixture([{ text: 'Hello there. I am fine, thanks! And you?' }]);
    const sentences: string[] = [];
    const outcome = await f.conversation.turn('How are you?', { entry: 'text', confirmation: allowAll, onSentence: (s) => sentences.push(s) });
    expect(outcome).toMatchObject({ status: 'ok', reply: 'Hello there. I am fine, thanks! And you?' });
    expect(sentences).toEqual(['Hello there.', 'I am fine, thanks!', 'And you?']);
    expect(f.conversation.messages).toEqual([
      { role: 'user', content: 'How are you?' },
      { role: 'assistant', content: 'Hello there. I am fine, thanks! And you?' },
    ]);
    expect(f.llmServer.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'You are a test.' });
  });

  it('runs a streamed tool call through the router and answers from its result', async () => {
    f = await conversationFixture([{ toolCalls: [weatherCall] }, { text: 'It is sunny in Rome.' }]);
    const announcements: string[] = [];
    const outcome = await f.conversation.turn("What's the weather in Rome?", { entry: 'text', confirmation: allowAll, onAnnouncement: (a) => announcements.push(a) });
    expect(outcome.reply).toBe('It is sunny in Rome.');
    expect(f.hub.calls).toEqual([expect.objectContaining({ name: 'weather', args: { place: 'Rome' } })]);
    expect(announcements).toEqual(['Checking the weather.']);
    const second = f.llmServer.requests[1]!.messages;
    const assistant = second.find((m) => m.role === 'assistant') as { tool_calls: { id: string; function: { arguments: string } }[] };
    expect(assistant.tool_calls[0]!.function.arguments).toBe('{"place": "Rome"}');
    expect(toolMessages(1)).toEqual([{ role: 'tool', tool_call_id: assistant.tool_calls[0]!.id, content: 'Sunny, 21 degrees in Rome' }]);
    expect(f.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(f.llmServer.requests[0]!.tools).toHaveLength(1);
    expect(f.audit.recent(1)[0]).toMatchObject({ tool: 'weather', entry: 'text', status: 'ok' });
  });

  it('announces in the language of the question, once per question', async () => {
    f = await conversationFixture([{ toolCalls: [weatherCall] }, { toolCalls: [weatherCall] }, { text: 'Fatto.' }]);
    const announcements: string[] = [];
    await f.conversation.turn('Che tempo fa domani a Roma?', { entry: 'text', confirmation: allowAll, onAnnouncement: (a) => announcements.push(a) });
    expect(announcements).toEqual(['Controllo il meteo.']);
    expect(f.hub.calls).toHaveLength(2);
  });

  it('stops offering tools after tool_rounds, which forces an answer', async () => {
    f = await conversationFixture([{ toolCalls: [weatherCall] }, { toolCalls: [weatherCall] }, { text: 'Enough.' }], { toolRounds: 1 });
    const outcome = await f.conversation.turn('Weather?', { entry: 'text', confirmation: allowAll });
    expect(f.llmServer.requests).toHaveLength(2);
    expect(f.llmServer.requests[0]!.tools).toHaveLength(1);
    expect(f.llmServer.requests[1]!.tools).toBeUndefined();
    expect(f.hub.calls).toHaveLength(1);
    expect(outcome.status).toBe('ok');
  });

  it('keeps the last 20 messages of history', async () => {
    f = await conversationFixture(Array.from({ length: 12 }, (_, i) => ({ text: `Reply ${i}.` })));
    for (let i = 0; i < 12; i++) await f.conversation.turn(`Question ${i}`, { entry: 'text', confirmation: allowAll });
    const last = f.llmServer.requests[11]!.messages;
    expect(last).toHaveLength(1 + 20 + 1);
    expect(last[1]).toEqual({ role: 'user', content: 'Question 1' });
    expect(last.at(-1)).toEqual({ role: 'user', content: 'Question 11' });
  });
});

describe('bad input from the LLM side', () => {
  it('reports an unreachable server by its URL and ends the turn cleanly', async () => {
    const url = `${await refusedUrl()}/v1`;
    f = await conversationFixture([], { llmUrl: url });
    const outcome = await f.conversation.turn('Hello?', { entry: 'text', confirmation: allowAll });
    expect(outcome.status).toBe('error');
    expect(outcome.error?.code).toBe('LLM_UNREACHABLE');
    expect(outcome.error?.message).toContain(url.replace(/\/v1$/, ''));
    expect(f.conversation.messages).toEqual([]);
    expect(f.events.map((e) => e.type)).toContain('error');
    expect(f.events.at(-1)).toMatchObject({ type: 'turn.ended', status: 'error' });
  });

  it('keeps what was produced when the stream is cut off mid-reply', async () => {
    f = await conversationFixture([{ text: 'First part is here. Second part is', fail: 'cut-mid-stream' }]);
    const sentences: string[] = [];
    const outcome = await f.conversation.turn('Tell me', { entry: 'text', confirmation: allowAll, onSentence: (s) => sentences.push(s) });
    expect(outcome.status).toBe('error');
    expect(outcome.error?.code).toBe('LLM_STREAM_BROKEN');
    expect(outcome.reply).toBe('First part is here. Second part is');
    expect(sentences).toEqual(['First part is here.', 'Second part is']);
    expect(f.conversation.messages.at(-1)).toEqual({ role: 'assistant', content: 'First part is here. Second part is' });
  });

  it('answers malformed tool-call JSON and an unknown tool with tool errors, and goes on', async () => {
    f = await conversationFixture([
      { toolCalls: [{ name: 'weather', arguments: '{"place": "Ro' }, { name: 'teleport', arguments: '{}' }] },
      { text: 'Sorry, I could not check.' },
    ]);
    const outcome = await f.conversation.turn('Weather?', { entry: 'text', confirmation: allowAll });
    expect(outcome).toMatchObject({ status: 'ok', reply: 'Sorry, I could not check.' });
    const results = toolMessages(1).map((m) => JSON.parse(String(m.content)).error.code);
    expect(results).toEqual(['TOOL_ARGUMENTS_INVALID', 'TOOL_UNKNOWN']);
    expect(f.hub.calls).toHaveLength(0);
  });

  it('gives a call without an id one, used for both the call and its result', async () => {
    f = await conversationFixture([{ toolCalls: [{ ...weatherCall, id: null }] }, { text: 'Done.' }]);
    await f.conversation.turn('Weather?', { entry: 'text', confirmation: allowAll });
    const second = f.llmServer.requests[1]!.messages;
    const assistant = second.find((m) => m.role === 'assistant') as { tool_calls: { id: string }[] };
    const id = assistant.tool_calls[0]!.id;
    expect(id).toMatch(/^call_/);
    expect(toolMessages(1)[0]).toMatchObject({ tool_call_id: id });
  });

  it('with the router off offers no tools and refuses a call the model makes anyway', async () => {
    f = await conversationFixture([{ toolCalls: [weatherCall] }, { text: 'I cannot use tools.' }], { routerEnabled: false });
    const outcome = await f.conversation.turn('Weather?', { entry: 'text', confirmation: allowAll });
    expect(f.llmServer.requests[0]!.tools).toBeUndefined();
    expect(JSON.parse(String(toolMessages(1)[0]!.content)).error.code).toBe('TOOLS_DISABLED');
    expect(outcome.reply).toBe('I cannot use tools.');
    expect(f.hub.calls).toHaveLength(0);
  });
});

describe('a reply the caller commits', () => {
  it('keeps history untouched until commit, then holds only the sentences given', async () => {
    f = await conversationFixture([{ text: 'First part. Second part. Third part.' }, { text: 'Fine.' }]);
    const outcome = await f.conversation.turn('Tell me three things', { entry: 'voice', confirmation: allowAll, commit: 'by_caller' });
    expect(outcome.sentences).toEqual(['First part.', 'Second part.', 'Third part.']);
    expect(f.conversation.messages).toEqual([]);
    f.conversation.commit('Tell me three things', outcome.sentences.slice(0, 1));
    f.conversation.commit('And nothing heard?', []);
    expect(f.conversation.messages).toEqual([
      { role: 'user', content: 'Tell me three things' },
      { role: 'assistant', content: 'First part.' },
    ]);
    await f.conversation.turn('Next', { entry: 'voice', confirmation: allowAll, commit: 'by_caller' });
    const sent = f.llmServer.requests[1]!.messages.map((m) => m.content);
    expect(sent).toEqual(['You are a test.', 'Tell me three things', 'First part.', 'Next']);
  });

  it('keeps no more history than it sends, however long the daemon runs', async () => {
    f = await conversationFixture([{ text: 'Last.' }]);
    for (let i = 1; i <= 500; i++) f.conversation.commit(`question ${i}`, [`answer ${i}.`]);
    // The default limit: the last 20 messages, the newest ten questions and their answers.
    expect(f.conversation.messages).toHaveLength(20);
    expect(f.conversation.messages[0]).toEqual({ role: 'user', content: 'question 491' });
    expect(f.conversation.messages.at(-1)).toEqual({ role: 'assistant', content: 'answer 500.' });
    await f.conversation.turn('One more', { entry: 'text', confirmation: allowAll });
    expect(f.llmServer.requests[0]!.messages.map((m) => m.content).slice(1, 3)).toEqual(['question 491', 'answer 491.']);
  });
});
