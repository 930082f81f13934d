import { describe, expect, it } from 'vitest';
import { pickSentenceLanguage, sentenceLanguagePicker } from '../../../src/voice/tts/index.js';

describe('per-sentence language', () => {
  const languages = ['it', 'en'];

  it('an Italian reply quoting an English sentence switches for that sentence only', () => {
    const pick = sentenceLanguagePicker(languages);
    const reply = ['Ecco la traduzione che mi hai chiesto.', 'What is the weather like today?', 'Spero che sia utile.'];
    expect(reply.map((s) => pick(s, 'it'))).toEqual(['it', 'en', 'it']);
  });

  it('a sentence with no telling word keeps the fallback (the turn language)', () => {
    expect(pickSentenceLanguage('Roma, 21 gradi.', languages, 'it')).toBe('it');
    expect(pickSentenceLanguage('OK.', languages, 'en')).toBe('en');
    expect(pickSentenceLanguage('Milano!', languages, 'en')).toBe('en');
  });

  it('a tie goes to the fallback, not to the first configured language', () => {
    // "la" is Italian, "the" English: one each.
    expect(pickSentenceLanguage('La the.', languages, 'en')).toBe('en');
    expect(pickSentenceLanguage('La the.', languages, 'it')).toBe('it');
  });

  it('only configured languages are chosen', () => {
    expect(pickSentenceLanguage('Der Hund ist nicht hier und das Wetter ist gut.', languages, 'it')).toBe('it');
    expect(pickSentenceLanguage('Der Hund ist nicht hier und das Wetter ist gut.', [...languages, 'de'], 'it')).toBe('de');
  });
});
