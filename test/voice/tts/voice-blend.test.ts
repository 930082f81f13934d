import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STYLE_DIM,
  TTS_BAD_OPTIONS,
  TTS_MODEL_MISSING,
  TTS_VOICE_INVALID,
  TTS_VOICE_UNKNOWN,
  blendStyles,
  listVoices,
  loadVoiceBlend,
  readVoice,
  styleForLength,
} from '../../../src/voice/tts/index.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { failure } from '../../helpers/outcomes.js';

/** The 54 voice files kokoro-js ships (it ships no model). */
const VOICES = join(process.cwd(), 'node_modules', 'kokoro-js', 'voices');

/** Bit-for-bit equality; vitest's toEqual walks 130k elements one by one (seconds). */
function bytesOf(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

describe('Kokoro voice files', () => {
  it('lists the shipped voices by name', async () => {
    const names = await listVoices(VOICES);
    expect(names.length).toBe(54);
    expect(names).toContain('af_heart');
    expect(names).toContain('if_sara');
    expect(names).toContain('af_bella');
  });

  it('reads a voice as 510 style vectors of 256 floats, as kokoro-js indexes it', async () => {
    const style = await readVoice(VOICES, 'if_sara');
    expect(style.length).toBe(510 * STYLE_DIM);
    expect(style.every(Number.isFinite)).toBe(true);
    expect(style.some((x) => x !== 0)).toBe(true);
    // Row n is for n phonemes; rows differ, so picking the row matters.
    expect(styleForLength(style, 0)).toEqual(style.subarray(0, STYLE_DIM));
    expect(styleForLength(style, 7)).toEqual(style.subarray(7 * STYLE_DIM, 8 * STYLE_DIM));
    expect(styleForLength(style, 7)).not.toEqual(styleForLength(style, 8));
    expect(styleForLength(style, 10_000)).toEqual(style.subarray(509 * STYLE_DIM));
  });
});

describe('voice blends', () => {
  let sara: Float32Array;
  let bella: Float32Array;
  beforeAll(async () => {
    sara = await readVoice(VOICES, 'if_sara');
    bella = await readVoice(VOICES, 'af_bella');
  });

  it('a blend of one voice at weight 1 is that voice', async () => {
    expect(bytesOf(await loadVoiceBlend(VOICES, { if_sara: 1 })).equals(bytesOf(sara))).toBe(true);
  });

  it('a blend of one voice at any weight is that voice: weights are normalized', async () => {
    expect(bytesOf(await loadVoiceBlend(VOICES, { if_sara: 0.3 })).equals(bytesOf(sara))).toBe(true);
  });

  it('{a: 0.5, b: 0.5} is the mean of the two', async () => {
    const blend = await loadVoiceBlend(VOICES, { if_sara: 0.5, af_bella: 0.5 });
    const mean = sara.map((x, i) => Math.fround((x + bella[i]!) / 2));
    expect(bytesOf(blend).equals(bytesOf(mean))).toBe(true);
    expect(bytesOf(await loadVoiceBlend(VOICES, { if_sara: 2, af_bella: 2 })).equals(bytesOf(mean))).toBe(true);
  });

  it('the default Italian blend is 0.8 sara + 0.2 bella, element by element', async () => {
    const blend = await loadVoiceBlend(VOICES, { if_sara: 0.8, af_bella: 0.2 });
    for (const i of [0, 1, 255, 256, 1000, sara.length - 1]) expect(blend[i]).toBeCloseTo(0.8 * sara[i]! + 0.2 * bella[i]!, 6);
  });

  it('an unknown voice is named, with the voices there are', async () => {
    const { code, message } = await failure(loadVoiceBlend(VOICES, { if_sara: 0.5, xx_nobody: 0.5 }));
    expect(code).toBe(TTS_VOICE_UNKNOWN);
    expect(message).toContain('"xx_nobody"');
    expect(message).toContain('af_heart');
    expect(message).toContain('if_sara');
    expect(message).toContain('zm_yunyang');
  });

  it('rejects weights that are negative or add up to nothing', async () => {
    expect((await failure(loadVoiceBlend(VOICES, { if_sara: 0 }))).code).toBe(TTS_BAD_OPTIONS);
    expect((await failure(loadVoiceBlend(VOICES, { if_sara: -1, af_bella: 2 }))).code).toBe(TTS_BAD_OPTIONS);
    expect((await failure(loadVoiceBlend(VOICES, {}))).code).toBe(TTS_BAD_OPTIONS);
  });

  it('blends in memory without files (pure)', () => {
    const a = Float32Array.of(1, 2, 3, 4);
    const b = Float32Array.of(3, 2, 1, 0);
    expect(blendStyles(new Map([['a', a], ['b', b]]), { a: 1, b: 3 })).toEqual(Float32Array.of(2.5, 2, 1.5, 1));
  });
});

describe('bad voice folders', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('tts-voices-');
    await dir.write('broken.bin', 'x'.repeat(1000));
  });
  afterAll(() => dir.remove());

  it('a folder that is not there is TTS_MODEL_MISSING naming it', async () => {
    const missing = join(dir.path, 'nope');
    const { code, message } = await failure(loadVoiceBlend(missing, { af_heart: 1 }));
    expect(code).toBe(TTS_MODEL_MISSING);
    expect(message).toContain(missing);
  });

  it('a file that is not whole style vectors is TTS_VOICE_INVALID naming it', async () => {
    const { code, message } = await failure(loadVoiceBlend(dir.path, { broken: 1 }));
    expect(code).toBe(TTS_VOICE_INVALID);
    expect(message).toContain(join(dir.path, 'broken.bin'));
  });
});
