import { describe, expect, it } from 'vitest';
import { SentenceSplitter, splitSentences, type SentenceSplitterOptions } from '../../../src/host/llm/index.js';
import { mulberry32 as rng } from '../../fakes/scripted-llm-server.js';

/** Pushes `text` in pieces of 1 to 7 code points chosen by `seed`, then flushes. */
function splitInChunks(text: string, seed: number, options?: SentenceSplitterOptions): string[] {
  const random = rng(seed);
  const chars = Array.from(text);
  const splitter = new SentenceSplitter(options);
  const out: string[] = [];
  for (let i = 0; i < chars.length; ) {
    const size = 1 + Math.floor(random() * 7);
    out.push(...splitter.push(chars.slice(i, i + size).join('')));
    i += size;
  }
  out.push(...splitter.flush());
  return out;
}

const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);

/** Every chunking gives the expected sentences, and so does one push of the whole text. */
function expectSplit(text: string, expected: string[], options?: SentenceSplitterOptions): void {
  expect(splitSentences(text, options)).toEqual(expected);
  for (const seed of SEEDS) expect(splitInChunks(text, seed, options), `seed ${seed}`).toEqual(expected);
}

describe('SentenceSplitter, English', () => {
  it('ends sentences at . ! ? and their combinations', () => {
    expectSplit('Hello there. How are you? I am fine! Really?! Yes.', ['Hello there.', 'How are you?', 'I am fine!', 'Really?!', 'Yes.']);
  });

  it('keeps closing quotes and brackets with the sentence they close', () => {
    expectSplit('He said "Stop." Then he left. (It was late.) Nobody saw him.', [
      'He said "Stop."',
      'Then he left.',
      '(It was late.)',
      'Nobody saw him.',
    ]);
    expectSplit('She asked “why?” The answer was **no.** Fine.', ['She asked “why?”', 'The answer was **no.**', 'Fine.']);
  });

  it('does not split decimals, times, versions, URLs or file names', () => {
    expectSplit('It is 3.5 degrees at 10.30 in Rome. Version 2.1.4 is out.', ['It is 3.5 degrees at 10.30 in Rome.', 'Version 2.1.4 is out.']);
    expectSplit('See https://example.com/docs/a.b?x=1&y=2 for details. Then open notes.txt now.', [
      'See https://example.com/docs/a.b?x=1&y=2 for details.',
      'Then open notes.txt now.',
    ]);
  });

  it('does not split common abbreviations and initials', () => {
    expectSplit('Dr. Smith met Mr. Jones and Mrs. Brown. They talked.', ['Dr. Smith met Mr. Jones and Mrs. Brown.', 'They talked.']);
    expectSplit('Bring fruit, e.g. Apples, i.e. Red ones. Also bread, etc. and milk. Done.', [
      'Bring fruit, e.g. Apples, i.e. Red ones.',
      'Also bread, etc. and milk.',
      'Done.',
    ]);
    expectSplit('J. R. R. Tolkien wrote it. See No. 5 on p. 12 today.', ['J. R. R. Tolkien wrote it.', 'See No. 5 on p. 12 today.']);
  });

  it('still ends a sentence at a word that is also an abbreviation when a capital follows', () => {
    expectSplit('I said no. Then I left, etc. The end came. So do I. Good.', ['I said no.', 'Then I left, etc.', 'The end came.', 'So do I.', 'Good.']);
  });

  it('does not split an ellipsis in the middle of a sentence, but does at its end', () => {
    expectSplit('Well... maybe later. Wait… What was that? Hmm...', ['Well... maybe later.', 'Wait…', 'What was that?', 'Hmm...']);
  });

  it('ends a sentence at a blank line, and with lineBreaks every-line at every line', () => {
    const text = 'Here is the list:\n\n1. Milk\n2. Eggs\n\nThat is all';
    expectSplit(text, ['Here is the list:', '1. Milk\n2. Eggs', 'That is all']);
    expectSplit(text, ['Here is the list:', '1. Milk', '2. Eggs', 'That is all'], { lineBreaks: 'every-line' });
    expectSplit('First line\nsecond line.\n \nThird', ['First line\nsecond line.', 'Third']);
  });

  it('does not end a sentence at a list number', () => {
    expectSplit('1. Open the door. 2. Close it.', ['1. Open the door.', '2. Close it.']);
    expectSplit('It costs 5. Then you pay.', ['It costs 5.', 'Then you pay.']);
  });

  it('needs whitespace after the mark, so the last sentence comes only from flush', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('Hello there.')).toEqual([]);
    expect(splitter.push(' How')).toEqual(['Hello there.']);
    expect(splitter.push(' are you?')).toEqual([]);
    expect(splitter.push(' ')).toEqual(['How are you?']);
    expect(splitter.flush()).toEqual([]);
  });

  it('flush returns the rest, trimmed, and nothing for blank text; the splitter is reusable', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('  no mark at the end  ')).toEqual([]);
    expect(splitter.flush()).toEqual(['no mark at the end']);
    expect(splitter.flush()).toEqual([]);
    expect(splitter.push(' \n\n ')).toEqual([]);
    expect(splitter.flush()).toEqual([]);
    expect(splitter.push('Again. Yes')).toEqual(['Again.']);
    expect(splitter.flush()).toEqual(['Yes']);
  });

  it('emits a sentence as soon as what follows decides it', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('Is it ready? ')).toEqual(['Is it ready?']);
    expect(splitter.push('Yes. ')).toEqual([]);
    expect(splitter.push('It')).toEqual(['Yes.']);
  });
});

describe('SentenceSplitter, any chunking', () => {
  it('gives the same sentences for random texts of tricky characters, however they are chunked', () => {
    const alphabet = ['a', 'B', 'è', ' ', ' ', '.', '.', '!', '?', '…', '"', '»', ')', '\n', '3', 'Dr', 'e.g', 'Sig', '😀'];
    for (let t = 0; t < 200; t += 1) {
      const random = rng(1000 + t);
      const text = Array.from({ length: 60 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const whole = splitSentences(text);
      // Nothing is lost or invented: the sentences are the text, less whitespace.
      expect(whole.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
      for (const seed of [1, 2, 3, 4, 5]) expect(splitInChunks(text, seed * 7919 + t), `text ${JSON.stringify(text)} seed ${seed}`).toEqual(whole);
    }
  });
});

describe('SentenceSplitter, Italian', () => {
  it('splits Italian text with accents and Italian punctuation', () => {
    expectSplit('Ciao! Come stai? Oggi a Roma ci sono 21,5 gradi. È una bella giornata… Vero?', [
      'Ciao!',
      'Come stai?',
      'Oggi a Roma ci sono 21,5 gradi.',
      'È una bella giornata…',
      'Vero?',
    ]);
  });

  it('does not split Italian abbreviations', () => {
    expectSplit('Il Sig. Rossi e la Dott.ssa Bianchi sono arrivati. La Sig.ra Verdi no.', [
      'Il Sig. Rossi e la Dott.ssa Bianchi sono arrivati.',
      'La Sig.ra Verdi no.',
    ]);
    expectSplit('Ho visto il Dott. Neri e il Prof. Gallo. Vedi pag. 12 e art. 3, ecc. e altro. Fine.', [
      'Ho visto il Dott. Neri e il Prof. Gallo.',
      'Vedi pag. 12 e art. 3, ecc. e altro.',
      'Fine.',
    ]);
  });

  it('keeps Italian closing quotes and a mid-sentence ellipsis', () => {
    expectSplit('Mi ha detto «Arrivo subito.» Beh... forse domani. Va bene.', ['Mi ha detto «Arrivo subito.»', 'Beh... forse domani.', 'Va bene.']);
  });
});

/** Random texts of tricky characters: however they are chunked, the same segments, and nothing lost or invented. */
function expectChunkingIndependent(alphabet: string[], options: SentenceSplitterOptions, length: number): void {
  for (let t = 0; t < 200; t += 1) {
    const random = rng(5000 + t);
    const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const whole = splitSentences(text, options);
    expect(whole.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
    for (const seed of [1, 2, 3, 4, 5]) expect(splitInChunks(text, seed * 7919 + t, options), `text ${JSON.stringify(text)} seed ${seed}`).toEqual(whole);
  }
}

const CLAUSE_ALPHABET = ['a', 'Bc', 'è', ' ', ' ', ' ', '.', '!', '…', ',', ', ', '; ', ': ', ' — ', ' - ', '-', '"', ')', '\n', '1,000', 'Dr', 'e.g', '😀'];

describe('SentenceSplitter, maximum segment length', () => {
  const words = (n: number, word = 'word'): string => Array.from({ length: n }, () => word).join(' ');

  it('cuts a reply with no sentence end ("word word. word ...") at the limit, so none of it waits for the end', () => {
    // Every dot is followed by a lower-case word, so none ends a sentence.
    const text = Array.from({ length: 60 }, (_, i) => (i % 2 === 1 ? 'word.' : 'word')).join(' ');
    const segments = splitSentences(text);
    expect(segments.length).toBeGreaterThan(1);
    for (const segment of segments) expect(segment.length).toBeLessThanOrEqual(250);
    // A dot that ended no sentence is still the best pause to cut at.
    expect(segments[0]).toMatch(/word\.$/);
    expect(segments.join(' ')).toBe(text);
    expectSplit(text, segments);
  });

  it('cuts a long first sentence at its last clause end within the limit', () => {
    const text = `${words(30)}, ${words(10, 'more')}; ${words(20, 'and')} end. Next one.`;
    expectSplit(text, [`${words(30)}, ${words(10, 'more')};`, `${words(20, 'and')} end.`, 'Next one.']);
    expectSplit('one two three — four five six seven eight nine ten eleven', ['one two three —', 'four five six seven eight nine', 'ten eleven'], { maxSegmentChars: 30 });
  });

  it('with no clause end, cuts at the last word end within the limit, never inside a word or after an abbreviation', () => {
    expectSplit('alpha beta gamma delta epsilon zeta eta theta', ['alpha beta gamma', 'delta epsilon zeta', 'eta theta'], { maxSegmentChars: 18 });
    expectSplit('we met the famous Dr. Watson there today', ['we met the famous', 'Dr. Watson there', 'today'], { maxSegmentChars: 21 });
    expectSplit('it costs 1,000,000 euros or so', ['it costs', '1,000,000 euros', 'or so'], { maxSegmentChars: 16 });
  });

  it('keeps a word longer than the limit whole', () => {
    const url = `https://example.com/${'x'.repeat(300)}`;
    expectSplit(`${url} is the link, open it`, [url, 'is the link, open it']);
    expectSplit(`see ${url}`, ['see', url]);
  });

  it('leaves sentences within the limit as they were', () => {
    expectSplit(`${words(40)}. ${words(30, 'then')}.`, [`${words(40)}.`, `${words(30, 'then')}.`]);
  });

  it('gives a cut segment as soon as one character past the limit has come', () => {
    const splitter = new SentenceSplitter({ maxSegmentChars: 20 });
    expect(splitter.push('one two three four f')).toEqual([]);
    expect(splitter.push('i')).toEqual(['one two three four']);
    expect(splitter.push('ve')).toEqual([]);
    expect(splitter.flush()).toEqual(['five']);
  });

  it('gives the same segments however random texts are chunked', () => {
    expectChunkingIndependent(CLAUSE_ALPHABET, { maxSegmentChars: 12 }, 80);
    expectChunkingIndependent(CLAUSE_ALPHABET, { maxSegmentChars: 25, lineBreaks: 'every-line' }, 80);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new SentenceSplitter({ maxSegmentChars: 0 })).toThrow(RangeError);
    expect(() => new SentenceSplitter({ maxSegmentChars: 2.5 })).toThrow(RangeError);
  });
});

describe("SentenceSplitter, firstSegment 'clause'", () => {
  const clause: SentenceSplitterOptions = { firstSegment: 'clause' };

  it('ends the first segment at a clause end once it has three words; later ones are sentences', () => {
    expectSplit('Sure, here is what I found: the forecast says rain, then sun. Bring an umbrella, just in case.', [
      'Sure, here is what I found:',
      'the forecast says rain, then sun.',
      'Bring an umbrella, just in case.',
    ], clause);
    expectSplit('Allora, secondo le previsioni, domani pioverà a Roma. Prendi l’ombrello.', ['Allora, secondo le previsioni,', 'domani pioverà a Roma.', 'Prendi l’ombrello.'], clause);
    // A dash is no word: "I think —" has two.
    expectSplit('I think so — and I am sure — it rains.', ['I think so —', 'and I am sure — it rains.'], clause);
    expectSplit('I think — and I am sure — it rains.', ['I think — and I am sure —', 'it rains.'], clause);
  });

  it('with no sentence or clause end, ends the first segment after seven words', () => {
    expectSplit('The weather in Rome today is sunny and warm with a light breeze. Enjoy.', [
      'The weather in Rome today is sunny',
      'and warm with a light breeze.',
      'Enjoy.',
    ], clause);
  });

  it('keeps a short first sentence whole, and cuts nothing inside a number or after an abbreviation', () => {
    expectSplit('Yes. That is right, I think so.', ['Yes.', 'That is right, I think so.'], clause);
    expectSplit('Well, it costs 1,000 euros, more or less.', ['Well, it costs 1,000 euros,', 'more or less.'], clause);
    expectSplit('We will meet with the famous Dr. Smith at noon today.', ['We will meet with the famous Dr. Smith', 'at noon today.'], clause);
    expectSplit('Bring fruit, e.g. apples and pears. Fine.', ['Bring fruit, e.g. apples and pears.', 'Fine.'], clause);
  });

  it('gives the first segment as soon as the space after it comes, and starts over after a flush', () => {
    const splitter = new SentenceSplitter(clause);
    expect(splitter.push('The weather in Rome today is sunny')).toEqual([]);
    expect(splitter.push(' ')).toEqual(['The weather in Rome today is sunny']);
    expect(splitter.push('and warm, with a light breeze')).toEqual([]);
    expect(splitter.flush()).toEqual(['and warm, with a light breeze']);
    expect(splitter.push('Right, so here we go, ')).toEqual(['Right, so here we go,']);
    expect(splitter.flush()).toEqual([]);
  });

  it('gives the same segments however random texts are chunked', () => {
    expectChunkingIndependent(CLAUSE_ALPHABET, clause, 60);
    expectChunkingIndependent(CLAUSE_ALPHABET, { ...clause, maxSegmentChars: 15 }, 80);
  });
});
