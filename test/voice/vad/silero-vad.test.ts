import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WavFileInput } from '../../../src/voice/audio/index.js';
import { SileroVad, type SpeechEndEvent } from '../../../src/voice/vad/index.js';
import { findUtterances } from '../../support/segments.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const F = 320;

/** First frame of the first 60 ms (3 frames) within 20 dB of the loudest frame: where the reading starts. */
function energyOnsetFrame(samples: Int16Array): number {
  const db: number[] = [];
  for (let from = 0; from + F <= samples.length; from += F) {
    let sum = 0;
    for (let i = from; i < from + F; i++) sum += samples[i]! ** 2;
    db.push(10 * Math.log10(sum / F + 1));
  }
  const loud = Math.max(...db) - 20;
  return db.findIndex((_, i) => db.slice(i, i + 3).length === 3 && db.slice(i, i + 3).every((v) => v >= loud));
}

/** Deterministic white noise (a linear congruential generator), peak `amplitude`. */
function noise(length: number, amplitude: number, seed = 1): Int16Array {
  let state = seed;
  return Int16Array.from({ length }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.round((state / 2147483648 - 0.5) * 2 * amplitude);
  });
}

describe('Silero VAD v5 and the endpointer on real audio', () => {
  let vad: SileroVad;
  let dir: TempDir;
  beforeAll(async () => {
    vad = await SileroVad.load();
    dir = await makeTempDir('da-vad-');
  });
  afterAll(async () => {
    await vad.close();
    await dir.remove();
  });

  const clips = readdirSync(LIBRIVOX).filter((f) => f.endsWith('.wav'));
  it('has the five librivox clips to test on', () => expect(clips.length).toBe(5));

  for (const clip of clips) {
    it(`finds one utterance in ${clip}, starting before the first word`, async () => {
      const { samples } = await WavFileInput.open(join(LIBRIVOX, clip));
      const utterances = await findUtterances(samples, vad);
      expect(utterances.length).toBe(1);
      const [u] = utterances as [SpeechEndEvent];
      const energy = energyOnsetFrame(samples);
      // The audio handed on starts before the energy does, and the detected onset is near it (not set off by noise).
      expect(u.audioStartFrameIndex).toBeLessThanOrEqual(energy);
      expect(Math.abs(u.frameIndex - energy)).toBeLessThanOrEqual(10);
      // The clips end mid-reading: the utterance runs to the end of the file.
      expect(u.audioStartFrameIndex * F + u.samples.length).toBe(samples.length);
    });
  }

  it('finds two utterances in two spoken sentences 1.5 s apart', async () => {
    const say = (name: string, text: string) => {
      const file = join(dir.path, name);
      execFileSync('espeak-ng', ['-w', file, text]);
      return file;
    };
    const first = say('one.wav', 'Turn on the kitchen lights, please.');
    const second = say('two.wav', 'What is the weather like tomorrow?');
    const gap = join(dir.path, 'gap.wav');
    execFileSync('sox', ['-n', '-r', '22050', '-c', '1', '-b', '16', gap, 'trim', '0', '1.5']);
    const both = join(dir.path, 'both.wav');
    // espeak-ng writes 22.05 kHz: the input resamples it.
    execFileSync('sox', [first, gap, second, both]);
    const input = await WavFileInput.open(both);
    const utterances = await findUtterances(input.samples, vad);
    expect(utterances.length).toBe(2);
    const [a, b] = utterances as [SpeechEndEvent, SpeechEndEvent];
    const firstFrames = (await WavFileInput.open(first)).frameCount;
    expect(a.frameIndex).toBeLessThan(10);
    expect(a.endFrameIndex).toBeLessThanOrEqual(firstFrames);
    expect(b.frameIndex).toBeGreaterThanOrEqual(firstFrames + 75 - 2);
    expect(b.audioStartFrameIndex).toBeGreaterThanOrEqual(a.audioStartFrameIndex + a.samples.length / F);
  });

  it('finds nothing in silence or in low noise', async () => {
    expect(await findUtterances(new Int16Array(16000 * 5), vad)).toEqual([]);
    for (const amplitude of [30, 100, 300]) expect(await findUtterances(noise(16000 * 5, amplitude), vad), `noise ${amplitude}`).toEqual([]);
  });

  it('is deterministic: the same audio gives the same segments, on one VAD or a fresh one', async () => {
    const { samples } = await WavFileInput.open(join(LIBRIVOX, clips[1]!));
    const once = await findUtterances(samples, vad);
    expect(await findUtterances(samples, vad)).toEqual(once);
    const fresh = await SileroVad.load();
    try {
      expect(await findUtterances(samples, fresh)).toEqual(once);
    } finally {
      await fresh.close();
    }
  });

  it('carries state: after reset the same window scores as from a fresh start; concurrent calls keep call order', async () => {
    const { samples } = await WavFileInput.open(join(LIBRIVOX, clips[0]!));
    const windows = Array.from({ length: 40 }, (_, i) => samples.slice(i * 512, i * 512 + 512));
    vad.reset();
    const sequential: number[] = [];
    for (const w of windows) sequential.push(await vad.probability(w));
    vad.reset();
    expect(await Promise.all(windows.map((w) => vad.probability(w)))).toEqual(sequential);
    expect(Math.max(...sequential)).toBeGreaterThan(0.9);
    expect(Math.min(...sequential)).toBeLessThan(0.1);
  });

  it('says what is wrong: window size, a missing model, use after close', async () => {
    await expect(vad.probability(new Int16Array(320))).rejects.toMatchObject({ code: 'VAD_FRAME_SIZE' });
    await expect(SileroVad.load({ modelPath: join(dir.path, 'none.onnx') })).rejects.toMatchObject({ code: 'VAD_MODEL_MISSING' });
    const junk = await dir.write('junk.onnx', 'not a model');
    await expect(SileroVad.load({ modelPath: junk })).rejects.toMatchObject({ code: 'VAD_MODEL_LOAD_FAILED' });
    const closing = await SileroVad.load();
    await closing.close();
    await expect(closing.probability(new Int16Array(512))).rejects.toMatchObject({ code: 'VAD_CLOSED' });
  });
});
