import { afterEach, describe, expect, it } from 'vitest';
import type { VoiceControl } from '../../../src/host/http/index.js';
import { apiFixture, type ApiFixture } from './api-fixture.js';

let f: ApiFixture;
afterEach(async () => {
  await f.close();
});

/** A voice that records what it was told. */
function fakeVoice(): VoiceControl & { calls: string[] } {
  let listening = false;
  const calls: string[] = [];
  return {
    calls,
    get listening() {
      return listening;
    },
    startListening(trigger) {
      calls.push(`start:${trigger}`);
      if (listening) return false;
      listening = true;
      return true;
    },
    stopListening() {
      calls.push('stop');
      const was = listening;
      listening = false;
      return was;
    },
  };
}

describe('POST /listen/start and /listen/stop', () => {
  it('start and stop a recording, and a second start while listening is a 409', async () => {
    f = await apiFixture();
    const voice = fakeVoice();
    f.deps.voice = voice;
    expect(await (await f.call('/listen/start', { method: 'POST' })).json()).toEqual({ listening: true });
    expect(await (await f.call('/state')).json()).toMatchObject({ voice: { listening: true } });
    const again = await f.call('/listen/start', { method: 'POST' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'VOICE_BUSY' } });
    expect(await (await f.call('/listen/stop', { method: 'POST' })).json()).toEqual({ stopped: true, listening: false });
    expect(await (await f.call('/listen/stop', { method: 'POST' })).json()).toEqual({ stopped: false, listening: false });
    expect(voice.calls).toEqual(['start:http', 'start:http', 'stop', 'stop']);
  });

  it('answer 409 VOICE_DISABLED without the voice, and need the token', async () => {
    f = await apiFixture();
    const response = await f.call('/listen/start', { method: 'POST' });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: { code: 'VOICE_DISABLED' } });
    expect((await f.call('/listen/stop', { method: 'POST', token: null })).status).toBe(401);
  });
});
