import { describe, expect, it } from 'vitest';
import { parsePocketsphinxOutput } from '../../../src/voice/stt/index.js';

describe('parsePocketsphinxOutput', () => {
  it('reads the hypothesis and averages the word posteriors, leaving out silence and noise', () => {
    const stdout = [
      'he was not an illness those young man',
      '<s> 0.000 0.060 0.999500',
      '<sil> 0.070 0.200 0.694306',
      'he 0.210 0.320 0.998701',
      'was(2) 0.330 0.540 0.999800',
      '[SPEECH] 0.980 1.100 0.535598',
      'those 1.690 2.040 0.055875',
      '++UM++ 2.040 2.100 0.4',
      '</s> 2.800 2.970 1.000000',
      '',
    ].join('\n');
    const result = parsePocketsphinxOutput(stdout);
    expect(result.text).toBe('he was not an illness those young man');
    expect(result.confidence).toBeCloseTo((0.998701 + 0.9998 + 0.055875) / 3, 6);
  });

  it('joins the segments of an utterance and clips posteriors above 1', () => {
    const stdout = 'turn on\r\nturn 0.000 0.220 1.000100\r\non(2) 0.230 0.350 1.000000\r\n\r\nthe light\r\nthe 1.0 1.1 0.5\r\nlight 1.1 1.4 0.5\r\n';
    expect(parsePocketsphinxOutput(stdout)).toEqual({ text: 'turn on the light', confidence: 0.75 });
  });

  it('gives empty text and no confidence when only silence was heard', () => {
    expect(parsePocketsphinxOutput('\n<s> 0.000 0.830 0.999900\n</s> 0.840 0.980 1.000000\n')).toEqual({ text: '' });
    expect(parsePocketsphinxOutput('')).toEqual({ text: '' });
  });

  it('takes a hypothesis printed without word lines (no -time)', () => {
    expect(parsePocketsphinxOutput('go forward ten meters\n')).toEqual({ text: 'go forward ten meters' });
  });
});
