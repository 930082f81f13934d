import { afterEach, describe, expect, it } from 'vitest';
import { noConfirmationChannel } from '../../../src/host/router/index.js';
import { Speaker } from '../../../src/voice/session/speaker.js';
import { VoiceService } from '../../../src/voice/session/voice-service.js';
import { VoiceSession } from '../../../src/voice/session/voice-session.js';
import type { AudioFrame, AudioInput } from '../../../src/voice/types.js';
import { FRAME_SAMPLES } from '../../../src/voice/types.js';
import { conversationFixture } from '../../host/conversation/conversation-fixture.js';
import { recordingOutput, recordingTts, scriptedDetector, scriptedStt } from './voice-fakes.js';

type Fixture = Awaited<ReturnType<typeof conversationFixture>>;
let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** A live-like input: frames until aborted, one per macrotask. */
function liveInput(): AudioInput {
  return {
    name: 'live',
    async *frames({ signal } = {}) {
      for (let index = 0; !signal?.aborted; index++) {
        await new Promise((resolve) => setImmediate(resolve));
        yield { samples: new Int16Array(FRAME_SAMPLES), index, atMs: index * 20 } satisfies AudioFrame;
      }
    },
    close: async () => undefined,
  };
}

function serviceOver(f: Fixture, utterances: [number, number][], transcripts: string[]) {
  const session = new VoiceSession({
    input: liveInput(),
    detector: scriptedDetector(utterances),
    stt: scriptedStt(transcripts.map((text) => ({ text, final: true }))),
    speaker: new Speaker({ tts: recordingTts(), output: recordingOutput(), bus: f.bus, sanitize: (t) => t }),
    conversation: f.conversation,
    bus: f.bus,
    checkTranscript: (t) => (t.text === '' ? 'empty' : undefined),
    languages: ['en'],
    defaultLanguage: 'en',
    confirmation: noConfirmationChannel('test'),
    sentenceLanguage: (_s, fallback) => fallback,
  });
  return new VoiceService(session, f.bus);
}

describe('VoiceService', () => {
  it('records until the end of speech, answers, and refuses a second start meanwhile', async () => {
    fixture = await conversationFixture([{ text: 'Hi!' }]);
    const service = serviceOver(fixture, [[3, 8]], ['hello']);
    expect(service.startListening('switch')).toBe(true);
    expect(service.listening).toBe(true);
    expect(service.startListening('http')).toBe(false);
    const result = await service.lastTurn;
    expect(result?.outcome?.reply).toBe('Hi!');
    expect(service.listening).toBe(false);
    expect(service.startListening('http')).toBe(true);
    await service.close();
  });

  it('a stop before anyone spoke ends the recording with nothing to answer', async () => {
    fixture = await conversationFixture([]);
    const service = serviceOver(fixture, [], []);
    service.startListening('key');
    expect(service.stopListening()).toBe(true);
    expect(await service.lastTurn).toBeUndefined();
    expect(fixture.events.some((e) => e.type === 'voice.transcript' && e.dropped === 'no speech')).toBe(true);
    expect(fixture.llmServer.requests).toHaveLength(0);
    expect(service.stopListening()).toBe(false);
  });
});
