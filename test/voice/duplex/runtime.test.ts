import { AppError } from '../../../src/errors/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { duplexHarness, LEVEL, SENTENCE_MS, tone } from './duplex-harness.js';

type Harness = Awaited<ReturnType<typeof duplexHarness>>;
let h: Harness;
afterEach(() => h.close());

const finals = () => h.events.filter((e) => e.type === 'voice.transcript' && e.final);

describe('full duplex, fakes in virtual time', () => {
  it('answers a question: states, event order, playback order, and the whole reply in history', async () => {
    h = await duplexHarness([{ text: 'It is sunny. It is warm. Take a hat.' }]);
    h.room.say(tone(LEVEL.weather, 600), 200);
    await h.runUntil(() => h.events.some((e) => e.type === 'voice.playback' && e.phase === 'ended') && h.voice.activity === 'idle');
    expect(h.states()).toEqual(['listening', 'thinking', 'speaking', 'idle']);
    const order = h.events
      .map((e) => e.type)
      .filter((t) => ['voice.speech', 'voice.transcript', 'turn.started', 'llm.sentence', 'voice.playback', 'turn.ended'].includes(t));
    expect(order.slice(0, 4)).toEqual(['voice.speech', 'voice.speech', 'voice.transcript', 'turn.started']);
    expect(order.indexOf('voice.playback')).toBeGreaterThan(order.indexOf('llm.sentence'));
    expect(h.tts.spoken).toEqual(['It is sunny.', 'It is warm.', 'Take a hat.']);
    // Played in order, each sentence whole: levels 500, 510, 520 and silence around them.
    expect(h.playedLevels().filter((l) => l > 0)).toEqual([500, 510, 520]);
    // The assistant's own echo (VAD 0.6 during playback) never became a transcript.
    expect(finals()).toHaveLength(1);
    expect(h.conversation.messages).toEqual([
      { role: 'user', content: 'what is the weather' },
      { role: 'assistant', content: 'It is sunny. It is warm. Take a hat.' },
    ]);
  });

  it('is interrupted while speaking: playback stops, the LLM is cancelled, only played text is kept, the speech is the next input', async () => {
    h = await duplexHarness([{ text: 'First sentence here. Second sentence here. Third sentence here. Fourth one.' }, { text: 'Okay, I stop.' }]);
    h.room.say(tone(LEVEL.weather, 600), 200);
    // The user talks over the second sentence (its level is 510).
    h.onFirst(
      (e) => e.type === 'voice.playback' && e.phase === 'started',
      () => h.room.say(tone(LEVEL.stop, 700), h.room.audioMs + 500),
    );
    await h.runUntil(() => h.conversation.messages.length === 4 && h.voice.activity === 'idle');
    expect(h.states()).toEqual(['listening', 'thinking', 'speaking', 'interrupted', 'listening', 'thinking', 'speaking', 'idle']);
    const interrupted = h.events.find((e) => e.type === 'voice.interrupted');
    expect(interrupted).toMatchObject({ turnId: 'duplex-1' });
    // Virtual audio time: the 100 ms of speech it takes to believe it, plus one VAD window or two.
    expect(interrupted?.type === 'voice.interrupted' && interrupted.latencyMs).toBeGreaterThanOrEqual(100);
    expect(interrupted?.type === 'voice.interrupted' && interrupted.latencyMs).toBeLessThan(250);
    // The first turn ended cancelled; sentences 3 and 4 were never played.
    expect(h.events.find((e) => e.type === 'turn.ended' && e.turnId === 'duplex-1')).toMatchObject({ status: expect.stringMatching(/cancelled|ok/) });
    const levels = h.playedLevels().filter((l) => l > 0 && l < 3000);
    expect(levels).not.toContain(520);
    expect(levels).not.toContain(530);
    expect(h.conversation.messages).toEqual([
      { role: 'user', content: 'what is the weather' },
      { role: 'assistant', content: 'First sentence here.' },
      { role: 'user', content: 'stop talking please' },
      { role: 'assistant', content: 'Okay, I stop.' },
    ]);
    const second = h.llmServer.requests[1]!.messages.map((m) => m.content);
    expect(second).toEqual(['You are a test.', 'what is the weather', 'First sentence here.', 'stop talking please']);
  });

  it('streams partial transcripts while the user speaks, and sends only the final one to the LLM', async () => {
    h = await duplexHarness([{ text: 'Sunny.' }], { partialIntervalMs: 200 });
    h.room.say(tone(LEVEL.weather, 1200), 200);
    await h.runUntil(() => h.conversation.messages.length === 2 && h.voice.activity === 'idle');
    const transcripts = h.events.filter((e) => e.type === 'voice.transcript');
    const partials = transcripts.filter((e) => e.type === 'voice.transcript' && !e.final);
    expect(partials.length).toBeGreaterThanOrEqual(2);
    // Two decodes agreed: the stable prefix is the whole text.
    expect(partials.at(-1)).toMatchObject({ text: 'what is the weather', stable: 'what is the weather' });
    const firstFinal = transcripts.findIndex((e) => e.type === 'voice.transcript' && e.final);
    expect(transcripts.indexOf(partials[0]!)).toBeLessThan(firstFinal);
    expect(h.llmServer.requests).toHaveLength(1);
    expect(h.llmServer.requests[0]!.messages.filter((m) => m.role === 'user')).toEqual([{ role: 'user', content: 'what is the weather' }]);
  });

  it('never takes its own echo for the user: no interruption, no transcript', async () => {
    h = await duplexHarness([{ text: 'One. Two. Three. Four. Five. Six.' }]);
    h.room.say(tone(LEVEL.weather, 600), 200);
    await h.runUntil(() => h.conversation.messages.length === 2 && h.voice.activity === 'idle');
    expect(h.states()).not.toContain('interrupted');
    expect(h.events.filter((e) => e.type === 'voice.interrupted')).toEqual([]);
    expect(finals()).toHaveLength(1);
    expect(h.stt.calls).toBe(1);
  });

  it('resumes from the cut sentence after a false interruption (a cough with no words)', async () => {
    h = await duplexHarness([{ text: 'First sentence here. Second sentence here. Third sentence here.' }]);
    h.room.say(tone(LEVEL.weather, 600), 200);
    h.onFirst(
      (e) => e.type === 'voice.playback' && e.phase === 'started',
      // At the end of the first 500 ms of the reply, which nothing interrupts (replyStartGuardMs).
      () => h.room.say(tone(LEVEL.cough, 200), h.room.audioMs + 500),
    );
    await h.runUntil(() => h.conversation.messages.length === 2 && h.voice.activity === 'idle');
    expect(h.states()).toEqual(['listening', 'thinking', 'speaking', 'interrupted', 'speaking', 'idle']);
    expect(h.events.find((e) => e.type === 'voice.resumed')).toMatchObject({ turnId: 'duplex-1', sentence: 1 });
    // A sentence counts as played once it is handed to the device: the speaker still holds its last chunks.
    await h.room.output.drain();
    // The second sentence (510), handed to the device when the cough cut it, was played again from its start: every sentence heard whole.
    const samplesAt = (level: number) => h.room.played.reduce((n, frame) => n + frame.filter((s) => s === level).length, 0);
    const sentenceSamples = (SENTENCE_MS * 16_000) / 1000;
    expect(samplesAt(500)).toBe(sentenceSamples);
    expect(samplesAt(510)).toBeGreaterThanOrEqual(sentenceSamples);
    expect(samplesAt(520)).toBe(sentenceSamples);
    expect(h.conversation.messages[1]).toEqual({ role: 'assistant', content: 'First sentence here. Second sentence here. Third sentence here.' });
  });

  it('cancels a read tool when interrupted during it', async () => {
    h = await duplexHarness([{ toolCalls: [{ name: 'slow_lookup', arguments: '{}' }] }, { text: 'Fine.' }]);
    // Never done by itself: only its cancellation ends it.
    const ended = addHeldTool(h, 'slow_lookup', 'read');
    h.room.say(tone(LEVEL.weather, 600), 200);
    h.onFirst(
      (e) => e.type === 'tool.started',
      () => h.room.say(tone(LEVEL.stop, 700), h.room.audioMs + 40),
    );
    await h.runUntil(() => h.conversation.messages.length === 2 && h.voice.activity === 'idle');
    expect(h.states()).toEqual(['listening', 'thinking', 'tool_running', 'interrupted', 'listening', 'thinking', 'speaking', 'idle']);
    expect(h.events.find((e) => e.type === 'tool.ended')).toMatchObject({ tool: 'slow_lookup', status: 'cancelled' });
    expect(ended).toEqual([]);
    expect(h.conversation.messages.map((m) => m.content)).toEqual(['stop talking please', 'Fine.']);
  });

  it('lets a write tool finish when interrupted, and never speaks or sends on its result', async () => {
    h = await duplexHarness([{ toolCalls: [{ name: 'slow_note', arguments: '{}' }] }, { text: 'Fine.' }, { text: 'Not to be heard.' }]);
    // Done only once the next turn has started: its result comes after its own turn was aborted.
    const nextTurn = new Promise<void>((resolve) => h.onFirst((e) => e.type === 'turn.started' && e.text === 'stop talking please', () => resolve()));
    const ended = addHeldTool(h, 'slow_note', 'write', nextTurn);
    h.room.say(tone(LEVEL.weather, 600), 200);
    h.onFirst(
      (e) => e.type === 'tool.started',
      () => h.room.say(tone(LEVEL.stop, 700), h.room.audioMs + 40),
    );
    await h.runUntil(() => h.conversation.messages.length === 2 && h.voice.activity === 'idle' && ended.length === 1);
    expect(h.states().slice(0, 4)).toEqual(['listening', 'thinking', 'tool_running', 'interrupted']);
    expect(h.events.find((e) => e.type === 'tool.started')).toMatchObject({ tool: 'slow_note', cancellable: false });
    expect(h.events.find((e) => e.type === 'tool.ended')).toMatchObject({ tool: 'slow_note', status: 'ok' });
    expect(ended).toEqual(['slow_note']);
    // Two requests: the first turn's tool round and the second turn; the note's result went nowhere.
    await h.voice.settled();
    expect(h.llmServer.requests).toHaveLength(2);
    expect(h.tts.spoken).toEqual(['Fine.']);
    expect(h.conversation.messages.map((m) => m.content)).toEqual(['stop talking please', 'Fine.']);
  });
});

/** A tool on the fake hub that runs until `done` (by default never) and stops if its call is cancelled; returns the names of the calls that finished. */
function addHeldTool(harness: Harness, name: string, risk: 'read' | 'write', done: Promise<void> = new Promise<void>(() => undefined)): string[] {
  const ended: string[] = [];
  harness.hub.addTool(
    'tools',
    { name, description: name, inputSchema: { type: 'object', properties: {}, additionalProperties: false }, _meta: { 'desktop-assistant/risk': risk } },
    async (_args, options) => {
      await new Promise<void>((resolve, reject) => {
        void done.then(resolve); // done only resolves
        options.signal?.addEventListener('abort', () => reject(new AppError('TOOL_CANCELLED', `${name} was cancelled`)));
      });
      ended.push(name);
      return { content: [{ type: 'text', text: `${name} done` }] };
    },
  );
  return ended;
}
