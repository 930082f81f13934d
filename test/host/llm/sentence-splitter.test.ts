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
