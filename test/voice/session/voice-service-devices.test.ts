/**
 * The voice service when a sound device goes away: the recording or the
 * reply under way ends with VOICE_DEVICE_LOST and the service is free at
 * once (it used to stay busy: VOICE_BUSY until a restart); no recording
 * starts while a device is missing, and one does as soon as it is back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors/index.js';
import { noConfirmationChannel } from '../../../src/host/router/index.js';
import { DeviceHealth } from '../../../src/voice/devices/index.js';
import { Speaker } from '../../../src/voice/session/speaker.js';
import { VoiceService } from '../../../src/voice/session/voice-service.js';
import { VoiceSession } from '../../../src/voice/session/voice-session.js';
import type { AudioFrame, AudioInput, AudioOutput } from '../../../src/voice/types.js';
import { FRAME_SAMPLES } from '../../../src/voice/types.js';
import { conversationFixture } from '../../host/conversation/conversation-fixture.js';
import { recordingOutput, recordingTts, scriptedDetector, scriptedStt } from './voice-fakes.js';

type Fixture = Awaited<ReturnType<typeof conversationFixture>>;
let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const lost = () => new AppError('AUDIO_DEVICE_LOST', 'audio input "default" stopped delivering sound (nothing for 1000 ms)', { retryable: true });

/** Frames, one per macrotask; after `failAfter` of them the device is gone. */
function inputFailingAfter(failAfter: number): AudioInput {
  return {
    name: 'fading',
    async *frames({ signal } = {}) {
      for (let index = 0; !signal?.aborted; index++) {
        await new Promise((resolve) => setImmediate(resolve));
        if (index >= failAfter) throw lost();
        yield { samples: new Int16Array(FRAME_SAMPLES), index, atMs: index * 20 } satisfies AudioFrame;
      }
    },
    close: async () => undefined,
  };
}

/** A speaker whose device went away: every write and drain throws. */
function goneOutput(): AudioOutput {
  const gone = () => new AppError('AUDIO_DEVICE_LOST', 'audio output "default" stopped taking sound (a write waited 1000 ms)');
  return { name: 'gone', write: async () => Promise.reject(gone()), drain: async () => Promise.reject(gone()), clear: () => undefined, close: async () => undefined };
}

function serviceOver(f: Fixture, input: AudioInput, output: AudioOutput, utterances: [number, number][], health: DeviceHealth) {
  const session = new VoiceSession({
    input,
    detector: scriptedDetector(utterances),
    stt: scriptedStt([{ text: 'hello', final: true }]),
    speaker: new Speaker({ tts: recordingTts(), output, bus: f.bus, sanitize: (t) => t }),
    conversation: f.conversation,
    bus: f.bus,
    checkTranscript: (t) => (t.text === '' ? 'empty' : undefined),
    languages: ['en'],
    defaultLanguage: 'en',
    confirmation: noConfirmationChannel('test'),
    sentenceLanguage: (_s, fallback) => fallback,
  });
  return new VoiceService(session, f.bus, Date.now, health);
}

const voiceErrors = (f: Fixture) => f.events.flatMap((e) => (e.type === 'error' && e.stage === 'voice' ? [{ code: e.code, message: e.message }] : []));

describe('VoiceService when a sound device goes away', () => {
  it('a recording whose microphone stops ends with VOICE_DEVICE_LOST, and the service is free again', async () => {
    fixture = await conversationFixture([]);
    const service = serviceOver(fixture, inputFailingAfter(5), recordingOutput(), [], new DeviceHealth());
    expect(service.startListening('http')).toBe(true);
    expect(await service.lastTurn).toBeUndefined();
    expect(service.listening).toBe(false);
    expect(voiceErrors(fixture)).toEqual([{ code: 'VOICE_DEVICE_LOST', message: 'the recording stopped: audio input "default" stopped delivering sound (nothing for 1000 ms)' }]);
    expect(fixture.llmServer.requests).toHaveLength(0);
    // The activity leaves "listening": the recording gave nothing to answer.
    expect(fixture.events.some((e) => e.type === 'voice.transcript' && e.final && e.dropped === 'the recording failed')).toBe(true);
    expect(service.startListening('http')).toBe(true);
    await service.close();
  });

  it('a reply whose speaker is gone ends with VOICE_DEVICE_LOST (the text turn itself completes), and the service is free again', async () => {
    fixture = await conversationFixture([{ text: 'Hi there.' }]);
    const service = serviceOver(fixture, inputFailingAfter(1000), goneOutput(), [[3, 8]], new DeviceHealth());
    expect(service.startListening('http')).toBe(true);
    expect(await service.lastTurn).toBeUndefined();
    expect(fixture.events.some((e) => e.type === 'turn.ended' && e.reply === 'Hi there.')).toBe(true);
    expect(voiceErrors(fixture)).toEqual([{ code: 'VOICE_DEVICE_LOST', message: 'the reply stopped: audio output "default" stopped taking sound (a write waited 1000 ms)' }]);
    // The activity leaves "speaking": the reply's playback ended.
    expect(fixture.events.filter((e) => e.type === 'voice.playback').map((e) => (e.type === 'voice.playback' ? e.phase : ''))).toEqual(['queued', 'started', 'ended']);
    expect(service.startListening('http')).toBe(true);
    await service.close();
  });

  it('refuses to listen while a device is missing, says why on the bus, and listens once it is back', async () => {
    fixture = await conversationFixture([]);
    const health = new DeviceHealth();
    const service = serviceOver(fixture, inputFailingAfter(1000), recordingOutput(), [], health);
    health.lost('input', 'default', 'audio input "default" stopped delivering sound');
    expect(service.missing.map((device) => device.device)).toEqual(['input']);
    expect(service.startListening('switch')).toBe(false);
    expect(service.listening).toBe(false);
    expect(voiceErrors(fixture)).toEqual([
      {
        code: 'VOICE_DEVICE_LOST',
        message: 'cannot listen: the microphone (default) is missing: audio input "default" stopped delivering sound. The voice comes back by itself when it returns',
      },
    ]);
    health.restored('input', 'default');
    expect(service.missing).toEqual([]);
    expect(service.startListening('switch')).toBe(true);
    service.stopListening();
    await service.close();
  });
});
