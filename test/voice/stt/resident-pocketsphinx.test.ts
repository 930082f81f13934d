import { getEventListeners } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWav, toVoiceFormat } from '../../../src/voice/audio/index.js';
import { RedecodingStt } from '../../../src/voice/streaming/index.js';
import { transcribeWhole } from '../../support/transcribe-whole.js';
import { PocketsphinxStt, ResidentPocketsphinxStt, STT_ADDON_UNAVAILABLE, STT_ENGINE_FAILED } from '../../../src/voice/stt/index.js';
import { wordErrorRate } from '../../support/wer.js';
import type { PartialTranscript, StreamingStt } from '../../../src/voice/types.js';
import { failure } from '../../helpers/outcomes.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

const DATA = '/usr/share/pocketsphinx/test/data';
const CARDS = join(DATA, 'cards');
const CLIP_0930 = join(DATA, 'librivox', 'sense_and_sensibility_01_austen_64kb-0930.wav');
const available = existsSync(CARDS) && existsSync('/usr/share/pocketsphinx/model/en-us/en-us');

async function samplesOf(path: string): Promise<Int16Array> {
  const wav = await readWav(path);
  return toVoiceFormat(wav.samples, wav.sampleRate, wav.channels);
}

/** The clip as a microphone would give it: 20 ms frames, one every `frameMs` of wall time (20: real time). */
async function streamed(stt: StreamingStt, samples: Int16Array, frameMs = 5): Promise<{ partials: PartialTranscript[]; text: string }> {
  const session = stt.startUtterance();
  const partials: PartialTranscript[] = [];
  session.onPartial((p) => partials.push(p));
  for (let at = 0; at < samples.length; at += 320) {
    session.push(samples.subarray(at, at + 320));
    // Wall time on purpose: the decoder runs on its own thread, and keeps up or falls behind only against a real clock.
    await new Promise((resolve) => setTimeout(resolve, frameMs));
  }
  return { partials, text: (await session.finish()).text };
}

describe.skipIf(!available)('the resident pocketsphinx engine on real speech', () => {
  let grammar: ResidentPocketsphinxStt;
  let free: ResidentPocketsphinxStt;
  beforeAll(async () => {
    [grammar, free] = await Promise.all([ResidentPocketsphinxStt.create({ jsgf: join(CARDS, 'cards.gram') }), ResidentPocketsphinxStt.create()]);
  });
  afterAll(async () => {
    await Promise.all([grammar?.close(), free?.close()]);
  });

  it('hears the grammar commands frame by frame with exactly the words of the spawned pocketsphinx_continuous', async () => {
    const spawned = new RedecodingStt(new PocketsphinxStt({ jsgf: join(CARDS, 'cards.gram') }), { partialIntervalMs: 0 });
    for (const name of ['001', '003', '005']) {
      const samples = await samplesOf(join(CARDS, `${name}.wav`));
      const [resident, reference] = await Promise.all([streamed(grammar, samples), transcribeWhole(spawned, samples)]);
      expect(resident.text, name).toBe(reference.text);
      expect(resident.text).not.toBe('');
    }
    expect((await streamed(grammar, await samplesOf(join(CARDS, '001.wav')))).text).toBe('ten of clubs');
  });

  it('gives growing partials while a sentence is read, each with a stable prefix of its own words, then a final of the same words', async () => {
    // In real time: a decoder that falls behind (a busy machine) decodes in bigger batches, one hypothesis each.
    const { partials, text } = await streamed(free, await samplesOf(CLIP_0930), 20);
    expect(partials.length).toBeGreaterThanOrEqual(3);
    const audio = partials.map((p) => p.audioMs);
    expect(audio).toEqual([...audio].sort((a, b) => a - b));
    const longest = Math.max(...partials.map((p) => p.text.split(' ').length));
    expect(longest).toBeGreaterThan(partials[0]!.text.split(' ').length);
    for (const p of partials) expect(p.text.startsWith(p.stable)).toBe(true);
    expect(partials.some((p) => p.stable.split(' ').length >= 3)).toBe(true);
    expect(wordErrorRate('he might even have been made amiable himself', text)).toBeLessThan(0.3);
  });

  it('keeps one decoder for many utterances, in order', async () => {
    const clips = await Promise.all(['001', '003'].map((name) => samplesOf(join(CARDS, `${name}.wav`))));
    const texts = await Promise.all([transcribeWhole(grammar, clips[0]!), transcribeWhole(grammar, clips[1]!), transcribeWhole(grammar, clips[0]!)]);
    expect(texts.map((t) => t.text)).toEqual(['ten of clubs', 'seven of clubs', 'ten of clubs']);
  });

  it('leaves no listener on a signal that outlives its utterances (the voice passes its own to every one)', async () => {
    const voice = new AbortController();
    const clip = await samplesOf(join(CARDS, '001.wav'));
    for (let i = 0; i < 12; i++) {
      const session = free.startUtterance({ signal: voice.signal });
      session.push(clip.subarray(0, 3200));
      if (i % 2 === 0) await session.finish();
      else session.cancel();
    }
    // One listener left per utterance kept every finished utterance alive for as long as the voice ran.
    expect(getEventListeners(voice.signal, 'abort')).toHaveLength(0);
  });
});

describe('the resident pocketsphinx engine cannot start', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('da-resident-');
  });
  afterAll(() => dir.remove());

  it('without its addon: a start-up error naming the fix', async () => {
    const error = await failure(ResidentPocketsphinxStt.create({ addonPath: '/nonexistent/pocketsphinx_decoder.node' }));
    expect(error.code).toBe(STT_ADDON_UNAVAILABLE);
    expect(error.message).toContain('/nonexistent/pocketsphinx_decoder.node');
    expect(error.message).toContain('scripts/setup.sh');
  });

  it.skipIf(!available)('with a model folder that holds no model: an error naming the folder', async () => {
    const error = await failure(ResidentPocketsphinxStt.create({ hmm: dir.path }));
    expect(error.code).toBe(STT_ENGINE_FAILED);
    expect(error.message).toContain(dir.path);
  });
});
