import { describe, expect, it } from 'vitest';
import { AppError, type ErrorCode } from '../../../src/errors/index.js';
import { createAssistantBus } from '../../../src/events/index.js';
import { Speaker } from '../../../src/voice/session/speaker.js';
import { recordingOutput } from './voice-fakes.js';

describe('Speaker', () => {
  it('reports a sentence that cannot be said, and says nothing of one cancelled with its turn', async () => {
    const bus = createAssistantBus();
    const errors: string[] = [];
    bus.subscribe((e) => {
      if (e.type === 'error') errors.push(e.code);
    });
    const failing = (code: ErrorCode) => ({
      name: 'failing',
      async *synthesize(): AsyncIterable<Int16Array> {
        throw new AppError(code, `synthesis ${code}`);
      },
      close: async () => undefined,
    });
    await new Speaker({ tts: failing('TTS_ENGINE_FAILED'), output: recordingOutput(), bus, sanitize: (t) => t }).say('Hello.', 'en');
    await new Speaker({ tts: failing('TTS_CANCELLED'), output: recordingOutput(), bus, sanitize: (t) => t }).say('Hello.', 'en');
    expect(errors).toEqual(['TTS_FAILED']);
  });
});
