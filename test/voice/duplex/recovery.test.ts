import { afterEach, describe, expect, it } from 'vitest';
import { duplexHarness, LEVEL, tone } from './duplex-harness.js';

type Harness = Awaited<ReturnType<typeof duplexHarness>>;
let h: Harness;
afterEach(() => h.close());

const errors = () => h.events.filter((e) => e.type === 'error').map((e) => e.type === 'error' && [e.stage, e.code, e.recoverable]);
const replies = () => h.conversation.messages.filter((m) => m.role === 'assistant').map((m) => m.content);

describe('full duplex recovery', () => {
  it('a TTS failure goes through recovering to idle, and no unspoken text reaches history', async () => {
    h = await duplexHarness([{ text: 'Good sentence. FAIL sentence. Never said.' }]);
    h.room.say(tone(LEVEL.weather, 600), 200);
    await h.runUntil(() => h.states().includes('recovering') && h.voice.activity === 'idle');
    expect(h.states()).toEqual(expect.arrayContaining(['thinking', 'recovering', 'idle']));
    expect(h.states().indexOf('recovering')).toBeLessThan(h.states().lastIndexOf('idle'));
    expect(errors()).toContainEqual(['tts', 'TTS_FAILED', true]);
    expect(replies().join(' ')).not.toMatch(/FAIL|Never/);
  });

  it('an LLM stream that breaks off goes through recovering, keeping only what was played', async () => {
    h = await duplexHarness([{ text: 'Partial answer here. And then some more', fail: 'cut-mid-stream' }, { text: 'Second try works.' }]);
    h.room.say(tone(LEVEL.weather, 600), 200);
    await h.runUntil(() => h.states().includes('recovering') && h.voice.activity === 'idle');
    expect(errors().some((e) => e && e[0] === 'llm')).toBe(true);
    expect(replies().join(' ')).not.toMatch(/some more/);
    // Listening again: the next question is answered.
    h.room.say(tone(LEVEL.weather, 600), h.room.audioMs + 200);
    await h.runUntil(() => replies().includes('Second try works.') && h.voice.activity === 'idle');
  });

  it('an echo canceller failure drops the utterance, recovers, and the next one is answered', async () => {
    h = await duplexHarness([{ text: 'Here you are.' }], { failApmAtFrame: 60 });
    h.room.say(tone(LEVEL.weather, 600), 200);
    await h.runUntil(() => h.states().includes('recovering') && h.voice.activity === 'idle' && h.room.audioMs > 2000);
    expect(errors()).toContainEqual(['audio', 'AUDIO_APM_FAILED', true]);
    expect(h.conversation.messages).toEqual([]);
    h.room.say(tone(LEVEL.weather, 600), h.room.audioMs + 200);
    await h.runUntil(() => h.conversation.messages.length === 2 && h.voice.activity === 'idle');
    expect(replies()).toEqual(['Here you are.']);
  });

  it('cancellation is idempotent: interrupting twice and closing twice raise nothing', async () => {
    h = await duplexHarness([{ text: 'A long reply. It goes on. And on. And on again.' }]);
    h.room.say(tone(LEVEL.weather, 600), 200);
    h.onFirst(
      (e) => e.type === 'voice.playback' && e.phase === 'started',
      () => {
        h.voice.interrupt('api');
        h.voice.interrupt('api');
        h.voice.interrupt('key');
      },
    );
    await h.runUntil(() => h.states().includes('interrupted') && h.voice.activity === 'idle');
    expect(h.states()).toEqual(['listening', 'thinking', 'speaking', 'interrupted', 'idle']);
    const turnEnd = h.events.find((e) => e.type === 'turn.ended');
    await h.voice.settled();
    expect(h.events.find((e) => e.type === 'turn.ended')).toMatchObject({ status: 'cancelled' });
    expect(turnEnd === undefined || turnEnd.type !== 'turn.ended' || turnEnd.status === 'cancelled').toBe(true);
    await h.voice.close();
    await h.voice.close();
    expect(errors().filter((e) => e && e[2] === false)).toEqual([]);
  });
});
