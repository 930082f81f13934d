import { afterEach, describe, expect, it } from 'vitest';
import { describe as describeEvent } from '../../../src/host/terminal/reporter.js';
import { ResidentPocketsphinxStt } from '../../../src/voice/stt/index.js';
import { scriptedDecoder } from '../../fakes/scripted-decoder.js';
import { duplexHarness, LEVEL, SENTENCE_MS, tone } from './duplex-harness.js';

type Harness = Awaited<ReturnType<typeof duplexHarness>>;
let h: Harness;
afterEach(() => h.close());

const REPLY = 'First sentence here. Second sentence here. Third sentence here.';
/** The user's words over the reply: 300 ms, loud enough for the barge-in rule. */
const SPEECH_MS = 300;

/**
 * The voice on fakes in virtual time, with a resident decoder on a scripted
 * one that hears `words` (one per 100 ms of the utterance's audio) and the
 * daemon's finished-sentence silence (160 ms). The question is typed; the
 * user speaks once, 100 ms into the reply's first sentence (no reply-start
 * guard: the scripted LLM streams on the wall clock, so only the first
 * sentence surely plays at a known audio time).
 */
async function talkOverReply(words: string[], replies = [{ text: REPLY }]): Promise<{ spokeAtMs: number }> {
  const recognizer = await ResidentPocketsphinxStt.create({ createDecoder: async () => scriptedDecoder({ words }) });
  h = await duplexHarness(replies, { recognizer, endpointer: { sentenceEndSilenceMs: 160 }, config: { replyStartGuardMs: 0 } });
  let spokeAtMs = -1;
  h.onFirst(
    (e) => e.type === 'voice.playback' && e.phase === 'started',
    () => {
      spokeAtMs = h.room.audioMs + 100;
      h.room.say(tone(LEVEL.stop, SPEECH_MS), spokeAtMs);
    },
  );
  h.voice.ask('what is the weather');
  return {
    get spokeAtMs() {
      return spokeAtMs;
    },
  };
}

/** The speaker played sound in the 20 ms frame at audio time `ms`. */
const soundAt = (ms: number): boolean => h.room.played[Math.floor(ms / 20)]?.some((s) => s !== 0) ?? false;

/** Audio time of the last frame with sound before `ms`. */
function lastSoundBefore(ms: number): number {
  for (let t = Math.floor(ms / 20) * 20 - 20; t >= 0; t -= 20) if (soundAt(t)) return t;
  return -1;
}

/** Audio time of the first frame with sound from `ms` on. */
function firstSoundFrom(ms: number): number {
  for (let t = Math.ceil(ms / 20) * 20; t < h.room.played.length * 20; t += 20) if (soundAt(t)) return t;
  return Infinity;
}

describe('full duplex: a backchannel over the reply, fakes in virtual time', () => {
  it('"mm-hm" stops the reply at once, which goes on where it stopped within 300 ms of the words\' end: no turn, history untouched', async () => {
    const talk = await talkOverReply(['mm-hm']);
    await h.runUntil(() => h.conversation.messages.length === 2 && h.voice.activity === 'idle');
    expect(h.states()).toEqual(['thinking', 'speaking', 'interrupted', 'speaking', 'idle']);
    const interrupted = h.events.find((e) => e.type === 'voice.interrupted');
    expect(interrupted?.type === 'voice.interrupted' && interrupted.latencyMs).toBeLessThan(250);
    const resumed = h.events.find((e) => e.type === 'voice.resumed');
    expect(resumed).toMatchObject({ turnId: 'duplex-1', sentence: 0, backchannel: 'mm-hm' });
    expect(resumed && describeEvent(resumed)).toBe('[voice] "mm-hm" is a backchannel: the reply goes on where it stopped');
    // Playing when the words began, stopped under them, and going again within 300 ms of their end.
    const wordsEndMs = talk.spokeAtMs + SPEECH_MS;
    expect(soundAt(talk.spokeAtMs)).toBe(true);
    const stoppedMs = lastSoundBefore(wordsEndMs) + 20;
    const againMs = firstSoundFrom(wordsEndMs);
    expect(stoppedMs - talk.spokeAtMs).toBeLessThan(250);
    expect(againMs - wordsEndMs).toBeLessThanOrEqual(300);
    // From where it stopped, not from the sentence's start: the first sentence (500) is heard once and a little (the 100 ms
    // rewind over what the speaker's queue dropped), not twice; the others once.
    await h.room.output.drain();
    const samplesAt = (level: number) => h.room.played.reduce((n, frame) => n + frame.filter((s) => s === level).length, 0);
    const sentenceSamples = (SENTENCE_MS * 16_000) / 1000;
    expect(samplesAt(500)).toBeGreaterThanOrEqual(sentenceSamples);
    expect(samplesAt(500)).toBeLessThanOrEqual(sentenceSamples + 1600);
    expect(samplesAt(510)).toBe(sentenceSamples);
    expect(samplesAt(520)).toBe(sentenceSamples);
    // One LLM request, no new turn, and the whole reply in history.
    expect(h.llmServer.requests).toHaveLength(1);
    expect(h.events.filter((e) => e.type === 'turn.started')).toHaveLength(1);
    expect(h.conversation.messages).toEqual([
      { role: 'user', content: 'what is the weather' },
      { role: 'assistant', content: REPLY },
    ]);
  });

  it('"stop" interrupts as before: the reply is cancelled, only what was played is kept, the words are the next turn', async () => {
    await talkOverReply(['stop'], [{ text: REPLY }, { text: 'Okay.' }]);
    await h.runUntil(() => h.conversation.messages.length === 2 && h.llmServer.requests.length === 2 && h.voice.activity === 'idle');
    expect(h.states()).toEqual(['thinking', 'speaking', 'interrupted', 'listening', 'thinking', 'speaking', 'idle']);
    expect(h.events.filter((e) => e.type === 'voice.resumed')).toEqual([]);
    // Cut in its first sentence, the reply leaves no trace in history (nor its question); the words are the next question.
    expect(h.conversation.messages.map((m) => m.content)).toEqual(['stop', 'Okay.']);
  });

  it('a backchannel followed by a question in one breath is a turn', async () => {
    await talkOverReply(['yeah', 'what', 'time', 'is', 'it'], [{ text: REPLY }, { text: 'Noon.' }]);
    await h.runUntil(() => h.conversation.messages.length === 2 && h.llmServer.requests.length === 2 && h.voice.activity === 'idle');
    expect(h.events.filter((e) => e.type === 'voice.resumed')).toEqual([]);
    expect(h.conversation.messages.map((m) => m.content)).toEqual(['yeah what time is it', 'Noon.']);
  });
});
