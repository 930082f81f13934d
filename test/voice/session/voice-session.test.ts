import { afterEach, describe, expect, it } from 'vitest';
import { ActivityTracker } from '../../../src/host/conversation/index.js';
import { noConfirmationChannel } from '../../../src/host/router/index.js';
import { Speaker } from '../../../src/voice/session/speaker.js';
import { VoiceSession } from '../../../src/voice/session/voice-session.js';
import { conversationFixture } from '../../host/conversation/conversation-fixture.js';
import { framesInput, recordingOutput, recordingTts, scriptedDetector, scriptedStt } from './voice-fakes.js';

type Fixture = Awaited<ReturnType<typeof conversationFixture>>;
let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function sessionOver(f: Fixture, stt: ReturnType<typeof scriptedStt>, utterances: [number, number][], frames = 40) {
  const tts = recordingTts();
  const output = recordingOutput();
  const { bus } = f;
  const activity = new ActivityTracker(bus);
  const speaker = new Speaker({ tts, output, bus, sanitize: (t) => t.replace(/\*/g, '') });
  const session = new VoiceSession({
    input: framesInput(frames),
    detector: scriptedDetector(utterances),
    stt,
    speaker,
    conversation: f.conversation,
    bus,
    checkTranscript: (t) => (t.text.trim() === '' ? 'empty' : undefined),
    languages: ['it', 'en'],
    defaultLanguage: 'en',
    confirmation: noConfirmationChannel('test'),
    sentenceLanguage: (_sentence, fallback) => fallback,
  });
  return { session, tts, output, activity };
}

describe('VoiceSession (turn-based)', () => {
  it('hears a question, runs the tool, speaks the announcement and the reply in order: listening, thinking, tool_running, speaking, idle', async () => {
    fixture = await conversationFixture([
      { toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }] },
      { text: 'It is **sunny** in Rome. Enjoy the day!' },
    ]);
    const stt = scriptedStt([{ text: "What's the weather in Rome?", final: true, language: 'en' }]);
    const { session, tts, output } = sessionOver(fixture, stt, [[5, 30]]);

    const anticipated: string[] = [];
    const conversation = fixture.conversation;
    const anticipate = conversation.anticipate.bind(conversation);
    conversation.anticipate = (text) => {
      anticipated.push(text);
      anticipate(text);
    };
    const results = await session.answerAll('file');
    expect(results).toHaveLength(1);
    expect(results[0]?.outcome?.reply).toBe('It is **sunny** in Rome. Enjoy the day!');
    // The partial while the question was spoken went to the page and the terminal, and to the conversation's recall.
    const partials = fixture.events.filter((e) => e.type === 'voice.transcript' && !e.final);
    expect(partials.map((e) => e.type === 'voice.transcript' && e.text)).toEqual(["What's"]);
    expect(anticipated).toEqual(["What's"]);
    // Recognition heard the utterance as it came: the start frame (its pre-roll) to the end frame.
    expect(stt.heard).toEqual([26 * 320]);
    expect(tts.said).toEqual([
      { text: 'Checking the weather.', language: 'en' },
      { text: 'It is sunny in Rome.', language: 'en' },
      { text: 'Enjoy the day!', language: 'en' },
    ]);
    expect(output.written).toBe(3 * 320);
    const states = fixture.events.filter((e) => e.type === 'state.changed').map((e) => (e as { state: string }).state);
    // Speaking starts with the announcement, while the tool runs; the order of first appearances is the issue's.
    const firsts = states.filter((s, i) => states.indexOf(s) === i);
    expect(firsts).toEqual(['listening', 'thinking', 'tool_running', 'speaking', 'idle']);
    expect(states[states.length - 1]).toBe('idle');
    const types = fixture.events.map((e) => e.type);
    expect(types.indexOf('voice.speech')).toBeLessThan(types.indexOf('voice.transcript'));
    const phases = fixture.events.flatMap((e) => (e.type === 'voice.playback' ? [e.phase] : []));
    expect(phases).toEqual(['queued', 'started', 'ended']);
    const timings = results[0]?.timings;
    expect(timings?.firstAudioMs).toBeGreaterThanOrEqual(timings?.sttFinalMs ?? Infinity);
  });

  it('drops an empty transcript without asking the LLM, and goes back to idle', async () => {
    fixture = await conversationFixture([]);
    const stt = scriptedStt([{ text: '  ', final: true }]);
    const { session, tts } = sessionOver(fixture, stt, [[2, 10]]);
    const [result] = await session.answerAll('file');
    expect(result?.dropped).toBe('empty');
    expect(fixture.llmServer.requests).toHaveLength(0);
    expect(tts.said).toEqual([]);
    const states = fixture.events.filter((e) => e.type === 'state.changed').map((e) => (e as { state: string }).state);
    expect(states).toEqual(['listening', 'idle']);
  });

  it('reports a failing recognizer and answers the next utterance', async () => {
    fixture = await conversationFixture([{ text: 'Hello there.' }]);
    const stt = scriptedStt([new Error('decoder crashed'), { text: 'hello', final: true }]);
    const { session } = sessionOver(fixture, stt, [[2, 6], [10, 14]]);
    const results = await session.answerAll('file');
    expect(results.map((r) => r.dropped ?? r.outcome?.reply)).toEqual(['empty', 'Hello there.']);
    expect(fixture.events.some((e) => e.type === 'error' && e.stage === 'stt' && e.message === 'decoder crashed')).toBe(true);
  });

  it('listenOnce: what was said until the stop, when the VAD did not hear an end', async () => {
    fixture = await conversationFixture([]);
    const { session } = sessionOver(fixture, scriptedStt([]), [[3, 1000]], 20);
    const stop = new AbortController();
    const heard = await session.listenOnce('http', stop.signal);
    expect(heard?.samples.length).toBe(320);
    const none = sessionOver(fixture, scriptedStt([]), [], 10).session;
    expect(await none.listenOnce('http', stop.signal)).toBeUndefined();
  });
});
