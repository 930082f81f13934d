import { describe, expect, it } from 'vitest';
import { endsOpen, wordsVerdict } from '../../../src/voice/session/end-of-turn.js';
import type { RecognitionSession } from '../../../src/voice/types.js';

function recognizing(words: string, complete: boolean, backlogMs = 0): RecognitionSession {
  return {
    push: () => undefined,
    onPartial: () => () => undefined,
    finish: async () => ({ text: words, final: true }),
    cancel: () => undefined,
    sentenceComplete: () => complete,
    hypothesis: () => words,
    backlogMs: () => backlogMs,
  };
}

/** Asked after 160 ms of silence, as the endpointer asks with the defaults. */
const AT_160 = { holdMs: 160, silenceMs: 160 };

describe('the words a finished question does not end on', () => {
  it('keeps a turn open on a trailing conjunction, article or preposition, in the language of the turn', () => {
    expect(endsOpen("what's the weather in", 'en')).toBe(true);
    expect(endsOpen('turn on the lights and', 'en')).toBe(true);
    expect(endsOpen('play the', 'en')).toBe(true);
    // English questions end on a preposition or a pronoun.
    expect(endsOpen('where is it from', 'en')).toBe(false);
    expect(endsOpen('how are you', 'en')).toBe(false);
    expect(endsOpen("What's the weather in Rome?", 'en')).toBe(false);
    expect(endsOpen('che tempo fa a', 'it')).toBe(true);
    expect(endsOpen('che tempo fa a Roma', 'it')).toBe(false);
    // No words yet: nothing finished.
    expect(endsOpen('', 'en')).toBe(true);
    // A language without a list decides nothing; no language checks every list.
    expect(endsOpen('und', 'de')).toBe(false);
    expect(endsOpen('prendi il', undefined)).toBe(true);
  });

  it('calls the words finished only when the recognizer does and they do not end open, else open; unknown without live words', () => {
    expect(wordsVerdict(recognizing('ten of clubs', true), AT_160, 'en')).toBe('finished');
    // Words the recognizer does not call finished: not the end yet (a pause inside the question).
    expect(wordsVerdict(recognizing('ten of clubs', false), AT_160, 'en')).toBe('open');
    expect(wordsVerdict(recognizing("what's the weather in", true), AT_160, 'en')).toBe('open');
    expect(wordsVerdict(recognizing("what's the weather in", false), AT_160, 'en')).toBe('open');
    // No words yet, or an engine that has no live words: nothing to go by.
    expect(wordsVerdict(recognizing('', false), AT_160, 'en')).toBe('unknown');
    const batch: RecognitionSession = { push: () => undefined, onPartial: () => () => undefined, finish: async () => ({ text: '', final: true }), cancel: () => undefined };
    expect(wordsVerdict(batch, AT_160, 'en')).toBe('unknown');
  });

  it('keeps the turn open while the recognizer is further behind than the silence: its words may stop mid-sentence', () => {
    // 300 ms of audio not decoded yet, 160 ms of it silence: some speech before the pause is not in the words.
    expect(wordsVerdict(recognizing('eight of spades', true, 300), AT_160, 'en')).toBe('open');
    // Caught up with the speech (the rest of its backlog is silence): the words decide.
    expect(wordsVerdict(recognizing('eight of spades', true, 300), { holdMs: 160, silenceMs: 320 }, 'en')).toBe('finished');
    expect(wordsVerdict(recognizing('eight of spades', true, 100), AT_160, 'en')).toBe('finished');
  });
});
