import { describe, expect, it } from 'vitest';
import { MEMORY_EMBEDDER_BAD_OPTIONS, MEMORY_EMBEDDER_CANCELLED } from '../../src/memory/embedder.js';
import { HashedEmbedder } from '../../src/memory/hashed-embedder.js';

const embedder = new HashedEmbedder();

function dot(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

function norm(v: Float32Array): number {
  return Math.sqrt(dot(v, v));
}

async function cosine(a: string, b: string): Promise<number> {
  const [va, vb] = await embedder.embed([a, b]);
  if (va === undefined || vb === undefined) throw new Error('missing vector');
  return dot(va, vb);
}

describe('HashedEmbedder', () => {
  it('names its version and dimension in its id', () => {
    expect(embedder.id).toBe('hashed-ngrams-v1/256');
    expect(embedder.dim).toBe(256);
    expect(new HashedEmbedder({ dim: 64, sublinearTf: true }).id).toBe('hashed-ngrams-v1/64/sublinear-tf');
  });

  it('is deterministic across instances and calls', async () => {
    const texts = ['My sister Anna lives in Torino', 'Il caffè è buono', '日本語のテキスト 😀 emoji'];
    const first = await new HashedEmbedder().embed(texts);
    const second = await new HashedEmbedder().embed(texts);
    expect(second).toEqual(first);
    expect(await embedder.embed(texts)).toEqual(first);
  });

  it('gives one unit-length vector per text, in order', async () => {
    const texts = ['a short note', 'I prefer dark roast coffee in the morning', 'x'.repeat(500), 'Straße in München'];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(256);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(dot(vectors[0] as Float32Array, (await embedder.embed(['a short note']))[0] as Float32Array)).toBeCloseTo(1, 5);
  });

  it('ranks the memory that shares the words of the query clearly above an unrelated one', async () => {
    const query = "when is my sister's birthday";
    const related = await cosine(query, "my sister's birthday is March 3");
    const unrelated = await cosine(query, 'I prefer dark roast coffee');
    expect(related).toBeGreaterThan(0.5);
    expect(related - unrelated).toBeGreaterThan(0.4);
  });

  it('folds case and accents: "Caffè" and "caffe" are the same word', async () => {
    expect(await cosine('Caffè', 'caffe')).toBeCloseTo(1, 5);
    expect(await cosine('PERCHÉ così', 'perche cosi')).toBeCloseTo(1, 5);
    // Combining marks do not split a word: a decomposed "è" is the same as a composed one.
    expect(await cosine('caffe\u0300 latte', 'caff\u00e8 latte')).toBeCloseTo(1, 5);
  });

  it('gives all zeros, not NaN, for a text with no words', async () => {
    const vectors = await embedder.embed(['', '   ', '?!... -- ,;']);
    for (const v of vectors) {
      expect(v).toHaveLength(256);
      expect([...v].every((x) => x === 0)).toBe(true);
    }
  });

  it('respects the dim option', async () => {
    const small = new HashedEmbedder({ dim: 32 });
    const [v] = await small.embed(['one two three four five']);
    expect(small.dim).toBe(32);
    expect(v).toHaveLength(32);
    expect(norm(v as Float32Array)).toBeCloseTo(1, 5);
  });

  it('finds some similarity between forms of one word through character trigrams', async () => {
    const plural = await cosine('meeting', 'meetings');
    expect(plural).toBeGreaterThan(0.1);
    expect(await cosine('meeting', 'birthday')).toBeLessThan(plural);
    expect(await cosine('the weekly meeting with Marco', 'meetings with Marco')).toBeGreaterThan(0.4);
  });

  it('does not know synonyms: "car" does not find "automobile"', async () => {
    expect(Math.abs(await cosine('car', 'automobile'))).toBeLessThan(0.1);
  });

  it('counts repeats as 1 + ln(n) with sublinear tf', async () => {
    const plain = new HashedEmbedder({ dim: 512 });
    const sublinear = new HashedEmbedder({ dim: 512, sublinearTf: true });
    const text = 'pizza pizza pizza pizza pizza and beer';
    const [p] = await plain.embed([text]);
    const [s] = await sublinear.embed([text]);
    const [beer] = await plain.embed(['beer']);
    // The repeated word swamps the other one less under sublinear tf.
    expect(dot(s as Float32Array, beer as Float32Array)).toBeGreaterThan(dot(p as Float32Array, beer as Float32Array));
    expect(norm(s as Float32Array)).toBeCloseTo(1, 5);
  });

  it('refuses an impossible dimension', () => {
    for (const dim of [0, -1, 1.5, Number.NaN, 100_000]) {
      expect(() => new HashedEmbedder({ dim })).toThrow(expect.objectContaining({ code: MEMORY_EMBEDDER_BAD_OPTIONS }));
    }
  });

  it('rejects an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['x'], { signal: controller.signal })).rejects.toMatchObject({ code: MEMORY_EMBEDDER_CANCELLED });
  });
});
