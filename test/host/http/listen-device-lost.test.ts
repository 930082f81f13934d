/**
 * GET /state and POST /listen/start while a sound device is missing: the
 * voice says what is gone in words, and a start is refused with
 * VOICE_DEVICE_LOST (503: for now), not VOICE_BUSY.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { VoiceControl } from '../../../src/host/http/index.js';
import type { MissingDevice } from '../../../src/voice/index.js';
import { apiFixture, type ApiFixture } from './api-fixture.js';

let f: ApiFixture;
afterEach(async () => {
  await f.close();
});

/** A voice that refuses to listen while a device is missing, as VoiceService does. */
function voiceMissing(missing: MissingDevice[]): VoiceControl {
  return {
    listening: false,
    missing,
    startListening: () => missing.length === 0,
    stopListening: () => false,
  };
}

const SPEAKER: MissingDevice = {
  device: 'output',
  message: 'the speaker (default) is missing: audio output "default" stopped taking sound (a write waited 1000 ms). The voice comes back by itself when it returns',
  sinceMs: 1_700_000_000_000,
};

describe('the voice with a device missing', () => {
  it('GET /state lists what is missing, in words; POST /listen/start is 503 VOICE_DEVICE_LOST with the same words', async () => {
    f = await apiFixture();
    const missing = [SPEAKER];
    f.deps.voice = voiceMissing(missing);
    f.deps.voiceEnabled = true;
    expect(await (await f.call('/state')).json()).toMatchObject({ voice: { enabled: true, listening: false, missing: [SPEAKER] } });
    const refused = await f.call('/listen/start', { method: 'POST' });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: { code: 'VOICE_DEVICE_LOST', message: `the voice cannot listen now: ${SPEAKER.message}` } });

    // Back: nothing missing in /state, and a start works.
    missing.length = 0;
    const state = (await (await f.call('/state')).json()) as { voice: Record<string, unknown> };
    expect(state.voice).not.toHaveProperty('missing');
    expect(await (await f.call('/listen/start', { method: 'POST' })).json()).toEqual({ listening: true });
  });
});
