import { afterEach, describe, expect, it } from 'vitest';
import { noConfirmationChannel } from '../../../src/host/router/index.js';
import { Speaker } from '../../../src/voice/session/speaker.js';
import { VoiceSession, type DetectorEvent, type UtteranceDetector } from '../../../src/voice/session/voice-session.js';
import type { AudioFrame, AudioInput, AudioOutput, RecognitionSession, StreamingStt, Tts } from '../../../src/voice/types.js';
import { FRAME_SAMPLES } from '../../../src/voice/types.js';
import { conversationFixture } from '../../host/conversation/conversation-fixture.js';
import type { ScriptedReply } from '../../fakes/scripted-llm-server.js';

type Fixture = Awaited<ReturnType<typeof conversationFixture>>;
let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Frames: speech 5-19, a pause 20-29 (the detector tells the silence), the end at 30. */
const START = 5;
const PAUSE = 20;
const END = 30;

/**
 * An utterance with a pause before its end, as the endpointer reports it:
 * the pause listener hears the silence grow from frame PAUSE on. Before the
 * end frame the input waits on `beforeEnd` (the test's chance to look at
 * what the pause started), so nothing depends on how fast the LLM answers.
 */
function pausedUtterance(beforeEnd: () => Promise<void>): { input: AudioInput; detector: UtteranceDetector } {
  let listener: ((silenceMs: number) => void) | undefined;
  const detector: UtteranceDetector = {
    async push(frame: AudioFrame): Promise<DetectorEvent[]> {
      if (frame.index === START) return [{ type: 'start', frame: START, samples: frame.samples }];
      if (frame.index > START && frame.index < PAUSE) listener?.(0);
      if (frame.index >= PAUSE && frame.index < END) listener?.((frame.index - PAUSE + 1) * 20);
      if (frame.index === END) return [{ type: 'end', frame: END, samples: new Int16Array((END - START) * FRAME_SAMPLES), rule: 'complete', silenceMs: 200 }];
      return [];
    },
    flush: async () => [],
    reset: () => undefined,
    setPauseListener: (next) => (listener = next),
  };
  const input: AudioInput = {
    name: 'paused',
    async *frames() {
      for (let index = 0; index <= END + 2; index++) {
        if (index === END) await beforeEnd();
        yield { samples: new Int16Array(FRAME_SAMPLES), index, atMs: index * 20 };
      }
    },
    close: async () => undefined,
  };
  return { input, detector };
}

/** A recognizer whose words so far are `hypothesis` (a finished sentence) and whose final is `final`. */
function hypothesisStt(hypothesis: string, final: string): StreamingStt {
  return {
    name: 'hypothesis-stt',
    startUtterance(): RecognitionSession {
      return {
        push: () => undefined,
        onPartial: () => () => undefined,
        finish: async () => ({ text: final, final: true, language: 'en' }),
        cancel: () => undefined,
        sentenceComplete: () => true,
        hypothesis: () => hypothesis,
      };
    },
    close: async () => undefined,
  };
}

/** Each sentence as one chunk whose samples are the sentence's number in `sentences`; the output keeps what it was given. */
function markingVoice(): { tts: Tts & { synthesized: string[] }; output: AudioOutput & { heard: string[] } } {
  const sentences: string[] = [];
  const synthesized: string[] = [];
  const heard: string[] = [];
  const tts = {
    name: 'marking',
    synthesized,
    async *synthesize(text: string) {
      synthesized.push(text);
      if (!sentences.includes(text)) sentences.push(text);
      yield new Int16Array(160).fill(sentences.indexOf(text) + 1);
    },
    close: async () => undefined,
  };
  const output = {
    name: 'heard',
    heard,
    write: async (samples: Int16Array) => void heard.push(sentences[samples[0]! - 1]!),
    drain: async () => undefined,
    clear: () => undefined,
    close: async () => undefined,
  };
  return { tts, output };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

async function turnWithPause(replies: ScriptedReply[], hypothesis: string, final: string, beforeEnd: (f: Fixture, voice: ReturnType<typeof markingVoice>) => Promise<void>) {
  fixture = await conversationFixture(replies);
  const f = fixture;
  const voice = markingVoice();
  const { input, detector } = pausedUtterance(() => beforeEnd(f, voice));
  const session = new VoiceSession({
    input,
    detector,
    stt: hypothesisStt(hypothesis, final),
    speaker: new Speaker({ tts: voice.tts, output: voice.output, bus: f.bus, sanitize: (t) => t }),
    conversation: f.conversation,
    bus: f.bus,
    checkTranscript: (t) => (t.text.trim() === '' ? 'empty' : undefined),
    languages: ['en'],
    defaultLanguage: 'en',
    confirmation: noConfirmationChannel('test'),
    sentenceLanguage: (_sentence, fallback) => fallback,
    preemptivePauseMs: 100,
  });
  const [result] = await session.answerAll('file');
  return { f, voice, result };
}

/** The speculation the conversation holds now (before a turn takes it). */
const speculationOf = (f: Fixture) => (f.conversation as unknown as { speculative?: { firstSentence: Promise<string | undefined> } }).speculative;

const speculations = (f: Fixture) => f.events.flatMap((e) => (e.type === 'llm.speculation' ? [e] : []));

describe('preemptive generation (turn-based voice)', () => {
  it('asks during the pause, synthesizes the first sentence unheard, and plays it at once when the final is the same question', async () => {
    const { f, voice, result } = await turnWithPause([{ text: 'It is sunny in Rome. About twenty degrees.' }], "what's the weather in rome", "What's the weather in Rome?", async (fx, v) => {
      // The request left during the pause and its first sentence was made, but nothing was played.
      await until(() => v.tts.synthesized.length === 1);
      expect(fx.llmServer.requests).toHaveLength(1);
      expect(v.output.heard).toEqual([]);
      expect(fx.events.some((e) => e.type === 'turn.started' || e.type === 'llm.sentence')).toBe(false);
      expect(fx.conversation.messages).toEqual([]);
    });
    expect(result?.outcome?.reply).toBe('It is sunny in Rome. About twenty degrees.');
    expect(f.llmServer.requests).toHaveLength(1);
    expect(f.llmServer.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: "what's the weather in rome" });
    expect(speculations(f).map((e) => e.phase)).toEqual(['started', 'used']);
    // The first sentence was synthesized once, ahead; every sentence heard once, in order.
    expect(voice.tts.synthesized).toEqual(['It is sunny in Rome.', 'About twenty degrees.']);
    expect(voice.output.heard).toEqual(['It is sunny in Rome.', 'About twenty degrees.']);
    expect(f.conversation.messages[0]).toEqual({ role: 'user', content: "What's the weather in Rome?" });
  });

  it('cancels the speculation when the final is another question, sends the real one, and nothing of the first is heard or kept', async () => {
    const replies: ScriptedReply[] = [(request) => ({ text: String(request.messages.at(-1)?.content).includes('tomorrow') ? 'Rain tomorrow.' : 'Sunny today. Nice.' })];
    const { f, voice, result } = await turnWithPause([replies[0]!, replies[0]!], 'what is the weather', 'what is the weather tomorrow', async (_fx, v) => {
      await until(() => v.tts.synthesized.length === 1);
    });
    expect(result?.outcome?.reply).toBe('Rain tomorrow.');
    expect(f.llmServer.requests).toHaveLength(2);
    const [started, discarded] = speculations(f);
    expect(started?.phase).toBe('started');
    expect(discarded).toMatchObject({ phase: 'discarded', reason: 'the final transcript is another question' });
    expect(speculations(f)).toHaveLength(2);
    expect(voice.output.heard).toEqual(['Rain tomorrow.']);
    expect(f.events.filter((e) => e.type === 'llm.sentence').map((e) => e.type === 'llm.sentence' && e.text)).toEqual(['Rain tomorrow.']);
    expect(f.conversation.messages).toEqual([
      { role: 'user', content: 'what is the weather tomorrow' },
      { role: 'assistant', content: 'Rain tomorrow.' },
    ]);
  });

  it('makes a tool call the speculative reply asks for only after the turn is committed, through the router', async () => {
    const { f, result } = await turnWithPause(
      [{ toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }] }, { text: 'Sunny in Rome.' }],
      'weather in rome please',
      'weather in rome please',
      async (fx) => {
        // The speculative round has ended with its tool call (no text: its first sentence resolves empty at the stream's end); nothing ran.
        await until(() => speculationOf(fx) !== undefined);
        expect(await speculationOf(fx)!.firstSentence).toBeUndefined();
        expect(fx.llmServer.requests).toHaveLength(1);
        expect(fx.hub.calls).toEqual([]);
        expect(fx.events.some((e) => e.type === 'tool.started' || e.type === 'announcement')).toBe(false);
      },
    );
    expect(result?.outcome?.reply).toBe('Sunny in Rome.');
    expect(f.hub.calls).toEqual([expect.objectContaining({ name: 'weather', args: { place: 'Rome' } })]);
    expect(f.audit.recent(1)[0]).toMatchObject({ tool: 'weather', entry: 'voice', status: 'ok' });
    expect(speculations(f).map((e) => e.phase)).toEqual(['started', 'used']);
  });

  it('cancels once however often it is discarded, and a discarded one is not taken', async () => {
    fixture = await conversationFixture([{ text: 'One.' }]);
    const f = fixture;
    const speculation = f.conversation.speculate('what time is it');
    f.conversation.discardSpeculation(speculation, 'the user went on');
    f.conversation.discardSpeculation(speculation, 'again');
    const discarded = speculations(f).filter((e) => e.phase === 'discarded');
    expect(discarded).toHaveLength(1);
    expect(discarded[0]).toMatchObject({ reason: 'the user went on' });
    expect(await speculation.firstSentence).toBeUndefined();
    // A discarded speculation offered to a turn is not taken: the turn asks afresh.
    const outcome = await f.conversation.turn('what time is it', { entry: 'voice', confirmation: noConfirmationChannel('test'), speculation });
    expect(outcome.reply).toBe('One.');
    expect(speculations(f).filter((e) => e.phase === 'used')).toHaveLength(0);
  });

  it('is not taken when another turn came first', async () => {
    fixture = await conversationFixture([{ text: 'Ahead.' }, { text: 'Typed.' }, { text: 'Fresh.' }]);
    const f = fixture;
    const speculation = f.conversation.speculate('how are you');
    await speculation.firstSentence;
    await f.conversation.turn('a typed question', { entry: 'text', confirmation: noConfirmationChannel('test') });
    const outcome = await f.conversation.turn('how are you', { entry: 'voice', confirmation: noConfirmationChannel('test'), speculation });
    expect(outcome.reply).toBe('Fresh.');
    expect(speculations(f).at(-1)).toMatchObject({ phase: 'discarded', reason: 'another turn came first' });
  });
});
