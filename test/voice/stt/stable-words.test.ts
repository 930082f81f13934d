import { describe, expect, it } from 'vitest';
import { StableWords } from '../../../src/voice/stt/index.js';

describe('StableWords', () => {
  it('makes a word stable once every hypothesis over the hold agreed on it, and drops it when the decoder revises it', () => {
    const stable = new StableWords(200);
    expect(stable.update('what', 100)).toBe('');
    expect(stable.update('what is', 200)).toBe('');
    // 'what' has stood since 100 ms: 200 ms at 300.
    expect(stable.update('what is the', 300)).toBe('what');
    expect(stable.update('what is the weather', 400)).toBe('what is');
    // The decoder revises 'is the' to 'is a': only what every hypothesis of the last 200 ms shares stays.
    expect(stable.update('what is a weather', 500)).toBe('what is');
    expect(stable.update('what is a weather', 600)).toBe('what is');
    expect(stable.update('What is a weather.', 700)).toBe('What is a weather.');
  });

  it('needs a hold of audio before anything is stable, whatever the count of hypotheses', () => {
    const stable = new StableWords(250);
    for (const ms of [10, 20, 30, 40]) expect(stable.update('hello', ms)).toBe('');
    expect(stable.update('hello', 260)).toBe('hello');
  });

  it('holds the last word of a hypothesis longer than the words another word already follows', () => {
    const stable = new StableWords(200, 100);
    expect(stable.update('what', 100)).toBe('');
    // 'what' stood 100 ms and 'is' follows it; 'is', the last word, has stood no time.
    expect(stable.update('what is', 200)).toBe('what');
    expect(stable.update('what is', 300)).toBe('what');
    // The last word after 200 ms unchanged.
    expect(stable.update('what is', 400)).toBe('what is');
    expect(stable.update('what is the', 500)).toBe('what is');
  });
});
