import { describe, expect, it } from 'vitest';
import { DEFAULT_MIN_CONFIDENCE, filterTranscript, type TranscriptVerdict } from '../../../src/voice/stt/index.js';

describe('filterTranscript', () => {
  it.each<[string, string, number | undefined, TranscriptVerdict]>([
    ['speech', ' Turn on the light. ', undefined, { keep: true, text: 'Turn on the light.' }],
    ['speech with a confidence', 'what time is it', 0.9, { keep: true, text: 'what time is it' }],
    ['empty', '', undefined, { keep: false, reason: 'empty' }],
    ['whitespace', ' \n\t ', 0.99, { keep: false, reason: 'empty' }],
    ['punctuation', ' ... ', undefined, { keep: false, reason: 'punctuation-only' }],
    ['dashes and a question mark', '- ?', undefined, { keep: false, reason: 'punctuation-only' }],
    ["whisper's blank audio", '[BLANK_AUDIO]', undefined, { keep: false, reason: 'non-speech' }],
    ['a bracketed sound with spaces', ' [ Silence ] ', undefined, { keep: false, reason: 'non-speech' }],
    ['a parenthesized sound', '(music)', undefined, { keep: false, reason: 'non-speech' }],
    ['several tags', '(upbeat music) [MUSIC] *laughs*', undefined, { keep: false, reason: 'non-speech' }],
    ['music notes', '♪ ♪', undefined, { keep: false, reason: 'non-speech' }],
    ['a tag and punctuation', '[BLANK_AUDIO].', undefined, { keep: false, reason: 'non-speech' }],
    ['speech around a tag', '[MUSIC] play some jazz [MUSIC]', undefined, { keep: true, text: 'play some jazz' }],
    ['low confidence', 'to the law', 0.17, { keep: false, reason: 'low-confidence' }],
    ['confidence at the threshold', 'ten of clubs', DEFAULT_MIN_CONFIDENCE, { keep: true, text: 'ten of clubs' }],
    ['non-speech before confidence', '[BLANK_AUDIO]', 0.01, { keep: false, reason: 'non-speech' }],
    ['numbers are words', '42', undefined, { keep: true, text: '42' }],
  ])('%s', (_, text, confidence, verdict) => {
    expect(filterTranscript(confidence === undefined ? { text } : { text, confidence })).toEqual(verdict);
  });

  it('takes its threshold from the options', () => {
    expect(filterTranscript({ text: 'hello', confidence: 0.5 }, { minConfidence: 0.6 })).toEqual({ keep: false, reason: 'low-confidence' });
    expect(filterTranscript({ text: 'hello', confidence: 0.1 }, { minConfidence: 0 })).toEqual({ keep: true, text: 'hello' });
  });
});
