import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { readWav } from '../../../src/voice/audio/index.js';
import { seededRandom } from '../../support/seeded-random.js';
import {
  STT_ADDON_UNAVAILABLE,
  loadPocketsphinxAddon,
  type NativeDecoder,
  type NativeDecoderOptions,
  type NativeFinal,
  type NativeHypothesis,
  type PocketsphinxAddon,
} from '../../../src/voice/stt/pocketsphinx-addon.js';
import { wordErrorRate } from '../../support/wer.js';

const MODEL = '/usr/share/pocketsphinx/model/en-us';
const DATA = '/usr/share/pocketsphinx/test/data';
const CARDS = join(DATA, 'cards');
const HMM = join(MODEL, 'en-us');
const DICT = join(MODEL, 'cmudict-en-us.dict');
const LM = join(MODEL, 'en-us.lm.bin');
// As POCKETSPHINX_DEFAULTS.decoder: the second search pass off.
const FLAGS = { fwdflat: 'no' };
/** 20 ms at 16 kHz: what the live voice feeds. */
const FRAME = 320;

// Debian's pocketsphinx-en-us and pocketsphinx-testdata; a missing addon
// fails (loadPocketsphinxAddon names the fix) rather than skips.
const available = existsSync(join(CARDS, 'cards.gram')) && existsSync(LM) && existsSync('/usr/bin/pocketsphinx_continuous');

const clips = new Map<string, Int16Array>();
async function clip(path: string): Promise<Int16Array> {
  let samples = clips.get(path);
  if (!samples) {
    const wav = await readWav(path);
    expect([wav.sampleRate, wav.channels]).toEqual([16_000, 1]);
    samples = wav.samples;
    clips.set(path, samples);
  }
  return samples;
}

const cardsClip = (id: string) => clip(join(CARDS, `${id}.wav`));
const librivoxClip = (id: string) => clip(join(DATA, 'librivox', `sense_and_sensibility_01_austen_64kb-${id}.wav`));

/** `<s> ten of clubs  </s> (001)` lines, by id. */
function transcripts(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^(.*)\((\S+)\)\s*$/.exec(line);
    if (match) out.set(match[2]!, match[1]!.replace(/<\/?s>/g, '').trim().replace(/\s+/g, ' '));
  }
  return out;
}

interface Decoded {
  final: NativeFinal;
  /** The hypotheses asked for, with the ms of audio fed before each. */
  partials: Array<NativeHypothesis & { atMs: number }>;
  /** The hypothesis after the last sample. */
  last: NativeHypothesis;
}

/** One utterance, fed 20 ms at a time, a hypothesis every `everyFrames` calls and after the last. */
async function decode(decoder: NativeDecoder, samples: Int16Array, everyFrames = 1): Promise<Decoded> {
  await decoder.startUtterance();
  const partials: Decoded['partials'] = [];
  let last: NativeHypothesis | undefined;
  for (let i = 0, n = 0; i < samples.length; i += FRAME, n++) {
    const end = i + FRAME >= samples.length;
    const hyp = await decoder.process(samples.subarray(i, i + FRAME), end || n % everyFrames === 0);
    if (hyp) partials.push({ ...hyp, atMs: Math.min(i + FRAME, samples.length) / 16 });
    if (end) last = hyp;
  }
  const final = await decoder.endUtterance();
  return { final, partials, last: last! };
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  return '(resolved)';
}

describe.skipIf(!available)('the live pocketsphinx addon', () => {
  let addon: PocketsphinxAddon;
  let dir: string;
  let cards: NativeDecoder;
  let lm: NativeDecoder;
  let lmInit: { syncMs: number; totalMs: number };

  beforeAll(async () => {
    addon = loadPocketsphinxAddon();
    dir = mkdtempSync(join(tmpdir(), 'ps-addon-'));
    cards = await addon.createDecoder({ hmm: HMM, dict: DICT, jsgf: join(CARDS, 'cards.gram'), flags: FLAGS });
    const start = performance.now();
    const pending = addon.createDecoder({ hmm: HMM, dict: DICT, lm: LM, flags: FLAGS });
    const syncMs = performance.now() - start;
    lm = await pending;
    lmInit = { syncMs, totalMs: performance.now() - start };
  });

  afterAll(async () => {
    await cards?.close();
    await lm?.close();
  });

  it('runs ps_init off the main thread: createDecoder returns at once, the decoder comes later', () => {
    // Loading the language model takes 0.2-0.7 s of CPU; on the main thread
    // the call itself would take that long.
    expect(lmInit.syncMs).toBeLessThan(lmInit.totalMs / 5);
  });

  it('decodes cards clips fed 20 ms at a time into the words of their transcripts, with the grammar', async () => {
    const expected = transcripts(join(CARDS, 'cards.transcription'));
    // 001 starts with speech at once; live, pocketsphinx_continuous too hears
    // "five ten of clubs" in it.
    for (const id of ['002', '003', '004', '005']) {
      await cards.resetNormalisation();
      const { final } = await decode(cards, await cardsClip(id));
      expect(final.text, id).toBe(expected.get(id));
      expect(final.words.map((w) => w.word).join(' '), id).toBe(expected.get(id));
      expect(final.frames, id).toBeGreaterThan(50);
    }
  });

  it('finds the words pocketsphinx_continuous -time yes -fwdflat no finds with a JSGF grammar, at the same times', async () => {
    const wav = join(CARDS, '005.wav');
    const printed = execFileSync(
      'pocketsphinx_continuous',
      ['-infile', wav, '-time', 'yes', '-fwdflat', 'no', '-jsgf', join(CARDS, 'cards.gram'), '-dict', DICT, '-hmm', HMM, '-logfn', '/dev/null'],
      { encoding: 'utf8' },
    );
    // "word start end posterior" lines, fillers left out as the addon does.
    const reference = printed
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f.length === 4 && /^\d+\.\d+$/.test(f[1]!) && !/^[<[]|^\+\+/.test(f[0]!))
      .map((f) => ({ word: f[0]!.replace(/\(\d+\)$/, ''), startMs: Number(f[1]) * 1000 }));
    expect(reference.length).toBeGreaterThanOrEqual(9);
    // A fresh decoder's state, as pocketsphinx_continuous starts with.
    await cards.resetNormalisation();
    const { final } = await decode(cards, await cardsClip('005'));
    expect(final.words.map((w) => w.word)).toEqual(reference.map((w) => w.word));
    final.words.forEach((w, i) => expect(Math.abs(w.startMs - reference[i]!.startMs), w.word).toBeLessThanOrEqual(10));
  });

  it('says how sure the grammar is that the sentence is over: 1 on a complete sentence, 0 half-way', async () => {
    // Optional parts: a sentence ends through null transitions, and after any
    // number of cards.
    const grammar = join(dir, 'hand.gram');
    writeFileSync(
      grammar,
      [
        '#JSGF V1.0;',
        'grammar hand;',
        'public <hand> = <card> [<card> [<card>]] [please];',
        '<card> = <rank> of <suit>;',
        '<rank> = ace | two | three | four | five | six | seven | eight | nine | ten | jack | queen | king;',
        '<suit> = clubs | hearts | diamonds | spades;',
        '',
      ].join('\n'),
    );
    const hand = await addon.createDecoder({ hmm: HMM, dict: DICT, jsgf: grammar, flags: FLAGS });
    try {
      const samples = await cardsClip('005');
      const whole = await decode(hand, samples, 5);
      expect(whole.last.text).toBe('eight of spades four of clubs seven of hearts');
      expect(whole.last.endProbability).toBe(1);
      expect(whole.partials[0]).toMatchObject({ text: '', endProbability: 0 });
      // On the way: "eight of spades" is a sentence, "eight of spades four of" is not.
      const byText = new Map(whole.partials.map((p) => [p.text, p.endProbability]));
      expect(byText.get('eight of spades')).toBe(1);
      expect(byText.get('eight of spades four of')).toBe(0);

      await hand.resetNormalisation();
      const half = await decode(hand, samples.subarray(0, samples.length / 2));
      expect(half.last.text).toBe('eight of spades four of');
      expect(half.last.endProbability).toBe(0);
    } finally {
      await hand.close();
    }
  });

  it('gives growing partial hypotheses during a LibriVox clip and a final with word posteriors, with the language model', async () => {
    const samples = await librivoxClip('0870');
    await lm.resetNormalisation();
    const { final, partials, last } = await decode(lm, samples, 10);
    const words = (text: string) => (text === '' ? 0 : text.split(' ').length);
    const at = (ms: number) => words(partials.filter((p) => p.atMs <= ms).at(-1)!.text);
    expect(at(200)).toBe(0);
    expect(at(1_500)).toBeGreaterThanOrEqual(2);
    expect(at(1_500)).toBeLessThan(at(3_500));
    expect(at(3_500)).toBeLessThan(at(5_500));
    expect(at(5_500)).toBeLessThan(words(last.text));
    expect(partials.map((p) => p.frames)).toEqual([...partials.map((p) => p.frames)].sort((a, b) => a - b));
    expect(last.endProbability).toBeGreaterThan(0);
    expect(last.endProbability).toBeLessThan(1);

    const reference = transcripts(join(DATA, 'librivox', 'transcription')).get('sense_and_sensibility_01_austen_64kb-0870')!;
    expect(wordErrorRate(reference, final.text)).toBeLessThan(0.5);
    expect(final.words.map((w) => w.word).join(' ')).toBe(final.text);
    expect(final.frames).toBeGreaterThan(600);
    const posteriors = final.words.map((w) => w.posterior);
    for (const p of posteriors) {
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThanOrEqual(1);
    }
    // Real posteriors from the lattice: confident words and doubtful ones.
    expect(Math.max(...posteriors)).toBeGreaterThan(0.9);
    expect(Math.min(...posteriors)).toBeLessThan(0.5);
    expect(final.confidence).toBeCloseTo(posteriors.reduce((a, b) => a + b, 0) / posteriors.length, 9);
    for (let i = 0; i < final.words.length; i++) {
      const w = final.words[i]!;
      expect(w.endMs).toBeGreaterThan(w.startMs);
      if (i > 0) expect(w.startMs).toBeGreaterThanOrEqual(final.words[i - 1]!.endMs);
    }
    expect(final.words.at(-1)!.endMs).toBeLessThanOrEqual(samples.length / 16);
  });

  it('adapts its cepstral normalisation across utterances, and decodes as a fresh decoder after resetNormalisation', async () => {
    const samples = await librivoxClip('0880');
    await lm.resetNormalisation();
    const fresh = (await decode(lm, samples, 1_000)).final;
    const adapted = (await decode(lm, samples, 1_000)).final;
    await lm.resetNormalisation();
    const again = (await decode(lm, samples, 1_000)).final;
    expect(again).toEqual(fresh);
    expect(adapted).not.toEqual(fresh);
  });

  it('times words from the start of the utterance, also after a pause the front end drops as silence', async () => {
    const samples = await cardsClip('003');
    await cards.resetNormalisation();
    const once = (await decode(cards, samples)).final;
    // The clip twice, 1.5 s of faint noise between, as one utterance: the
    // VAD drops the pause, and ps_seg_frames alone would move the first
    // words by the second onset.
    await cards.resetNormalisation();
    const gap = 24_000;
    const random = seededRandom(3);
    const twice = new Int16Array(samples.length * 2 + gap).map(() => Math.round((random() - 0.5) * 8));
    twice.set(samples, 0);
    twice.set(samples, samples.length + gap);
    const { final } = await decode(cards, twice);
    expect(final.text).toBe(`${once.text} ${once.text}`);
    const offsetMs = (samples.length + gap) / 16;
    final.words.forEach((w, i) => {
      const expected = once.words[i % once.words.length]!.startMs + (i < once.words.length ? 0 : offsetMs);
      expect(Math.abs(w.startMs - expected), `${w.word} ${i}`).toBeLessThanOrEqual(30);
    });
  });

  it('copies the samples when called: the caller may reuse its buffer at once', async () => {
    const samples = await cardsClip('003');
    await cards.resetNormalisation();
    const expected = (await decode(cards, samples)).final;
    await cards.resetNormalisation();
    await cards.startUtterance();
    const buffer = new Int16Array(FRAME);
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < samples.length; i += FRAME) {
      const piece = samples.subarray(i, i + FRAME);
      const view = buffer.subarray(0, piece.length);
      view.set(piece);
      pending.push(cards.process(view, false));
      buffer.fill(0);
    }
    await Promise.all(pending);
    expect(await cards.endUtterance()).toEqual(expected);
  });

  it('runs calls made without waiting one at a time, in order', async () => {
    const samples = await cardsClip('004');
    await cards.resetNormalisation();
    const started = cards.startUtterance();
    const processed = cards.process(samples, true);
    const ended = cards.endUtterance();
    await started;
    expect((await processed)?.frames).toBeGreaterThan(100);
    expect((await ended).text).toBe('five five');
  });

  it('rejects calls in the wrong state with an Error, and stays usable', async () => {
    expect(await rejection(cards.process(new Int16Array(FRAME), true))).toMatch(/process: no utterance is started/);
    expect(await rejection(cards.endUtterance())).toMatch(/endUtterance: no utterance is started/);
    await cards.startUtterance();
    expect(await rejection(cards.startUtterance())).toMatch(/startUtterance: an utterance is already started/);
    expect(await rejection(cards.resetNormalisation())).toMatch(/resetNormalisation: not during an utterance/);
    expect(await rejection(cards.process(new Float32Array(FRAME) as unknown as Int16Array, false))).toMatch(/Int16Array/);
    await cards.process(await cardsClip('003'), false);
    expect((await cards.endUtterance()).text).toBe('seven of clubs');
    expect(await rejection(cards.endUtterance())).toMatch(/no utterance is started/);
  });

  it('closes after the calls queued before close(); later calls reject, close() twice is fine', async () => {
    const decoder = await addon.createDecoder({ hmm: HMM, dict: DICT, jsgf: join(CARDS, 'cards.gram'), flags: FLAGS });
    const samples = await cardsClip('003');
    const started = decoder.startUtterance();
    const processed = decoder.process(samples, false);
    const ended = decoder.endUtterance();
    const closed = decoder.close();
    expect(decoder.close()).toBe(closed);
    await started;
    await processed;
    expect((await ended).text).toBe('seven of clubs');
    await closed;
    await decoder.close();
    for (const call of [
      () => decoder.startUtterance(),
      () => decoder.process(samples, true),
      () => decoder.endUtterance(),
      () => decoder.resetNormalisation(),
    ]) {
      expect(await rejection(call())).toMatch(/the decoder is closed/);
    }
  });

  it('rejects a missing model file or a bad flag, naming it', async () => {
    const base: NativeDecoderOptions = { hmm: HMM, dict: DICT, jsgf: join(CARDS, 'cards.gram') };
    const create = (options: NativeDecoderOptions) => rejection(addon.createDecoder(options));
    expect(await create({ ...base, hmm: '/nonexistent/en-us' })).toContain('/nonexistent/en-us');
    expect(await create({ ...base, dict: '/nonexistent/words.dict' })).toContain('/nonexistent/words.dict');
    expect(await create({ hmm: HMM, dict: DICT, lm: '/nonexistent/en-us.lm.bin' })).toContain('/nonexistent/en-us.lm.bin');
    expect(await create({ ...base, jsgf: '/nonexistent/cards.gram' })).toContain('/nonexistent/cards.gram');
    expect(await create({ ...base, flags: { fwdflatt: 'no' } })).toContain("unknown decoder flag 'fwdflatt'");
    expect(await create({ ...base, flags: { beam: 'wide' } })).toContain("flag 'beam' needs a number, not 'wide'");
    expect(await create({ ...base, lm: LM })).toContain('exactly one of lm');
    // Errors ps_init reports (logged to nowhere) come back in the message.
    const oov = join(dir, 'oov.gram');
    writeFileSync(oov, '#JSGF V1.0;\ngrammar oov;\npublic <a> = ten of zzyzx;\n');
    expect(await create({ ...base, jsgf: oov })).toMatch(/ps_init failed: .*'zzyzx' is missing in the dictionary/);
  });

  it('turns an E_FATAL in ps_init (a corrupt model) into a rejection instead of an exit', async () => {
    const hmm = join(dir, 'corrupt-hmm');
    execFileSync('cp', ['-r', HMM, hmm]);
    writeFileSync(join(hmm, 'mdef'), 'not a model definition\n');
    expect(await rejection(addon.createDecoder({ hmm, dict: DICT, jsgf: join(CARDS, 'cards.gram') }))).toMatch(
      /ps_init failed fatally: .*not a model definition/,
    );
  });
});

describe('loadPocketsphinxAddon', () => {
  it('fails with STT_ADDON_UNAVAILABLE, naming the fix, when the addon is missing or is not one', () => {
    const codeAndMessage = (path: string) => {
      try {
        loadPocketsphinxAddon(path);
      } catch (error) {
        if (isAppError(error)) return [error.code, error.message] as const;
        throw error;
      }
      return [undefined, ''] as const;
    };
    const [code, message] = codeAndMessage('/nonexistent/pocketsphinx_decoder.node');
    expect(code).toBe(STT_ADDON_UNAVAILABLE);
    expect(message).toContain('bash scripts/setup.sh');
    expect(message).toContain('bash scripts/build-pocketsphinx.sh');
    expect(message).toContain('libpocketsphinx-dev');
    const bogus = join(mkdtempSync(join(tmpdir(), 'ps-addon-')), 'pocketsphinx_decoder.node');
    writeFileSync(bogus, 'not a shared object');
    expect(codeAndMessage(bogus)[0]).toBe(STT_ADDON_UNAVAILABLE);
  });
});
