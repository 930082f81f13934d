import { describe, expect, it } from 'vitest';
import { normalizeWords, wordErrorRate, wordErrors } from '../../support/wer.js';

describe('word error rate', () => {
  it('normalizes case, punctuation and sentence markers', () => {
    expect(normalizeWords("<s> Mr. Dashwood, don't -- 'ill-disposed'! </s>")).toEqual(['mr', 'dashwood', "don't", 'ill', 'disposed']);
    expect(normalizeWords('Perché è già qui?')).toEqual(['perché', 'è', 'già', 'qui']);
  });

  it.each([
    ['the same words', 'the light is on', 'The light is on.', 0, 4],
    ['one substitution', 'turn on the light', 'turn on the night', 1, 4],
    ['one deletion', 'turn on the light', 'turn the light', 1, 4],
    ['one insertion', 'turn on the light', 'turn on the the light', 1, 4],
    ['all wrong and longer', 'ten of clubs', "i've been up close", 4, 3],
    ['nothing heard', 'ten of clubs', '', 3, 3],
    ['two empty texts', '', '', 0, 0],
  ])('%s', (_, reference, hypothesis, errors, referenceWords) => {
    const result = wordErrors(reference, hypothesis);
    expect(result).toEqual({ errors, referenceWords, rate: referenceWords === 0 ? errors : errors / referenceWords });
  });

  it('counts inserted words against an empty reference', () => {
    expect(wordErrorRate('', 'uh huh')).toBe(2);
  });

  it('matches a hand-counted librivox line', () => {
    // 22 reference words; pocketsphinx's answer differs by 8 edits (mister/mr, dashwood/guess what, ...).
    const reference = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them';
    const hypothesis = 'and mr john guess what and then at leisure to consider how much there might be greatly in his power to do how about';
    expect(wordErrors(reference, hypothesis)).toEqual({ errors: 8, referenceWords: 22, rate: 8 / 22 });
  });
});
