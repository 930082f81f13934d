import { describe, expect, it } from 'vitest';
import type { SpeculativeReply, VoiceConversation } from '../../../src/voice/host-ports.js';
import { Preemption } from '../../../src/voice/session/preemption.js';
import type { Speaker } from '../../../src/voice/session/speaker.js';
import type { RecognitionSession } from '../../../src/voice/types.js';

/** A conversation that records what it was asked ahead and what it was told to drop. */
function recordingConversation() {
  const asked: string[] = [];
  const dropped: { text: string; reason: string }[] = [];
  const conversation: VoiceConversation = {
    turn: () => Promise.reject(new Error('no turns here')),
    commit: () => undefined,
    anticipate: () => undefined,
    speculate: (text): SpeculativeReply => {
      asked.push(text);
      return { id: `s${asked.length}`, text, firstSentence: Promise.resolve(undefined) };
    },
    discardSpeculation: (reply, reason) => void dropped.push({ text: reply.text, reason }),
  };
  return { conversation, asked, dropped };
}

const speaker = { prepare: () => undefined, dropPrepared: () => undefined } as unknown as Speaker;

/** A recognition whose words are whatever `words.now` holds; finished when `complete.now`. */
function liveWords(first: string) {
  const state = { words: first, complete: false, backlogMs: 0 };
  const recognition: RecognitionSession = {
    push: () => undefined,
    onPartial: () => () => undefined,
    finish: async () => ({ text: state.words, final: true }),
    cancel: () => undefined,
    sentenceComplete: () => state.complete,
    hypothesis: () => state.words,
    backlogMs: () => state.backlogMs,
  };
  return { state, recognition };
}

function preemption(conversation: VoiceConversation) {
  return new Preemption({ conversation, speaker, pauseMs: 32, language: 'en', sentenceLanguage: (_s, fallback) => fallback });
}

describe('preemptive generation, the voice side (silence in Silero windows of 32 ms)', () => {
  it('asks at once for a finished sentence, and for other words once they held still one window', () => {
    const { conversation, asked } = recordingConversation();
    const finished = liveWords('what time is it');
    finished.state.complete = true;
    preemption(conversation).pause(32, finished.recognition);
    expect(asked).toEqual(['what time is it']);

    const other = recordingConversation();
    const unsure = liveWords('five five');
    const p = preemption(other.conversation);
    p.pause(32, unsure.recognition);
    expect(other.asked).toEqual([]);
    p.pause(64, unsure.recognition);
    expect(other.asked).toEqual(['five five']);
    // The same words again: asked once.
    p.pause(96, unsure.recognition);
    expect(other.asked).toEqual(['five five']);
  });

  it('waits for the decoder to catch up with the speech before the pause: its words until then are older than the pause', () => {
    const { conversation, asked } = recordingConversation();
    const behind = liveWords('what time');
    behind.state.complete = true;
    behind.state.backlogMs = 200;
    const p = preemption(conversation);
    p.pause(32, behind.recognition);
    p.pause(64, behind.recognition);
    expect(asked).toEqual([]);
    // Caught up: the words are the whole question.
    behind.state.words = 'what time is it';
    behind.state.backlogMs = 20;
    p.pause(96, behind.recognition);
    expect(asked).toEqual(['what time is it']);
  });

  it('never asks for words that stop open, and drops what it asked when the words change or the user goes on', () => {
    const { conversation, asked, dropped } = recordingConversation();
    const heard = liveWords("what's the weather in");
    heard.state.complete = true;
    const p = preemption(conversation);
    p.pause(32, heard.recognition);
    p.pause(64, heard.recognition);
    expect(asked).toEqual([]);
    heard.state.words = "what's the weather in rome";
    p.pause(96, heard.recognition);
    expect(asked).toEqual(["what's the weather in rome"]);
    // The decoder caught up with another word: the first question is dropped, the new one asked once it holds.
    heard.state.words = "what's the weather in rome today";
    heard.state.complete = false;
    p.pause(128, heard.recognition);
    expect(dropped).toEqual([{ text: "what's the weather in rome", reason: 'the words changed' }]);
    p.pause(160, heard.recognition);
    expect(asked.at(-1)).toBe("what's the weather in rome today");
    p.pause(0, heard.recognition);
    expect(dropped.at(-1)).toEqual({ text: "what's the weather in rome today", reason: 'the user went on' });
    // Dropping again drops nothing more.
    p.discard('again');
    expect(dropped).toHaveLength(2);
  });

  it('hands the speculation to the turn only for the same question', () => {
    const { conversation, dropped } = recordingConversation();
    const heard = liveWords('ten of clubs');
    heard.state.complete = true;
    const p = preemption(conversation);
    p.pause(32, heard.recognition);
    expect(p.take('Ten of clubs.')?.text).toBe('ten of clubs');
    const q = preemption(conversation);
    q.pause(32, heard.recognition);
    expect(q.take('ten of hearts')).toBeUndefined();
    expect(dropped.at(-1)).toEqual({ text: 'ten of clubs', reason: 'the final transcript is another question' });
  });
});
