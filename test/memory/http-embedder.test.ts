import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MEMORY_EMBEDDER_BAD_OPTIONS, MEMORY_EMBEDDER_CANCELLED, MEMORY_EMBEDDER_FAILED } from '../../src/memory/embedder.js';
import { HttpEmbedder } from '../../src/memory/http-embedder.js';
import { refusedUrl, sendJson, sendText, startHttpStub, type HttpStub } from '../helpers/http-stub.js';
import { waitFor } from '../helpers/wait-for.js';

/** No provider shape, so only the embedder's own scrubbing keeps it out of messages. */
const FAKE_KEY = 'local-embedding-key-4821';

interface Posted {
  path: string;
  body: { model?: unknown; input?: unknown };
  authorization: string | undefined;
}

let stub: HttpStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** A loopback server whose `reply` gets the parsed request body; every request is kept in `posted`. */
async function server(reply: (posted: Posted, res: ServerResponse) => void): Promise<{ url: string; posted: Posted[] }> {
  const posted: Posted[] = [];
  stub = await startHttpStub((request, res) => {
    // The stub hands over the response only; the request it answers is `res.req`.
    const chunks: Buffer[] = [];
    res.req.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Posted['body'];
      const item: Posted = { path: request.path, body, authorization: request.headers.authorization as string | undefined };
      posted.push(item);
      reply(item, res);
    });
  });
  return { url: `${stub.url}/v1`, posted };
}

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
}

const failure = (pattern: RegExp, code = MEMORY_EMBEDDER_FAILED): unknown =>
  expect.objectContaining({ code, message: expect.stringMatching(pattern) });

describe('HttpEmbedder', () => {
  it('posts the model and texts, orders the vectors by index and normalizes them', async () => {
    const { url, posted } = await server((_posted, res) =>
      sendJson(res, 200, {
        object: 'list',
        data: [
          { object: 'embedding', index: 1, embedding: [0, 3, 4] },
          { object: 'embedding', index: 0, embedding: [2, 0, 0] },
          { object: 'embedding', index: 2, embedding: [0, 0, 0] },
        ],
      }),
    );
    const embedder = new HttpEmbedder({ url: `${url}/`, model: 'nomic-embed', apiKey: FAKE_KEY });
    expect(embedder.id).toBe(`openai/${url}/nomic-embed`);
    expect(embedder.dim).toBeUndefined();
    const vectors = await embedder.embed(['first', 'second', '']);
    expect(posted).toEqual([{ path: '/v1/embeddings', body: { model: 'nomic-embed', input: ['first', 'second', ''], encoding_format: 'float' }, authorization: `Bearer ${FAKE_KEY}` }]);
    expect(vectors.map((v) => [...v])).toEqual([[1, 0, 0], [0, expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)], [0, 0, 0]]);
    expect(norm(vectors[1] as Float32Array)).toBeCloseTo(1, 6);
    expect(embedder.dim).toBe(3);
  });

  it('sends no request and no Authorization header when there is nothing to send or no key', async () => {
    const { url, posted } = await server((_posted, res) => sendJson(res, 200, { data: [{ index: 0, embedding: [1, 1] }] }));
    const embedder = new HttpEmbedder({ url, model: 'm' });
    expect(await embedder.embed([])).toEqual([]);
    expect(posted).toHaveLength(0);
    await embedder.embed(['x']);
    expect(posted[0]?.authorization).toBeUndefined();
  });

  it('fails when the vectors of one reply differ in dimension, naming both', async () => {
    const { url } = await server((_posted, res) =>
      sendJson(res, 200, { data: [{ index: 0, embedding: [1, 2, 3, 4] }, { index: 1, embedding: [1, 2, 3] }] }),
    );
    await expect(new HttpEmbedder({ url, model: 'm' }).embed(['a', 'b'])).rejects.toEqual(
      failure(/embedding 1 with 3 dimensions; embedding 0 has 4/),
    );
  });

  it('fails when a later reply changes the dimension', async () => {
    let dims = 4;
    const { url } = await server((posted, res) =>
      sendJson(res, 200, { data: (posted.body.input as string[]).map((_, index) => ({ index, embedding: new Array(dims).fill(1) })) }),
    );
    const embedder = new HttpEmbedder({ url, model: 'm' });
    await embedder.embed(['a']);
    dims = 8;
    await expect(embedder.embed(['b'])).rejects.toEqual(failure(/8 dimensions; earlier replies had 4/));
    expect(embedder.dim).toBe(4);
  });

  it('reports an HTTP error with the status, the URL and a clipped body, without the key', async () => {
    const { url } = await server((_posted, res) => sendText(res, 500, `model crashed; key was ${FAKE_KEY}; ${'x'.repeat(1000)}`));
    const error = await new HttpEmbedder({ url, model: 'm', apiKey: FAKE_KEY }).embed(['a']).catch((e: unknown) => e);
    expect(error).toEqual(failure(new RegExp(`^the embedding server at ${url} answered HTTP 500: model crashed`)));
    const { message, retryable } = error as { message: string; retryable: boolean };
    expect(message).not.toContain(FAKE_KEY);
    expect(message.length).toBeLessThan(400);
    expect(retryable).toBe(true);
  });

  it('keeps the key out even where the clip would cut it in half', async () => {
    const { url } = await server((_posted, res) => sendText(res, 401, `${'x'.repeat(190)}${FAKE_KEY}`));
    const error = await new HttpEmbedder({ url, model: 'm', apiKey: FAKE_KEY }).embed(['a']).catch((e: unknown) => e);
    expect(error).toEqual(failure(/answered HTTP 401: x+\[redacted\]$/));
    expect((error as Error).message).not.toContain(FAKE_KEY.slice(0, 6));
    expect((error as { retryable: boolean }).retryable).toBe(false);
  });

  it('reports a reply that is not JSON, or not the expected shape', async () => {
    const replies: Array<[(res: ServerResponse) => void, RegExp]> = [
      [(res) => sendText(res, 200, '{"data": [oops'), /sent a reply that is not JSON/],
      [(res) => sendJson(res, 200, { embeddings: [[1, 2]] }), /without a "data" array/],
      [(res) => sendJson(res, 200, { data: [{ index: 0, embedding: 'abc' }] }), /position 0 that is not a list of numbers/],
      [(res) => sendJson(res, 200, { data: [{ index: 0, embedding: [1, null] }] }), /position 0 that is not a list of numbers/],
      [(res) => sendJson(res, 200, { data: [{ index: 3, embedding: [1] }] }), /out-of-range index at position 0/],
    ];
    for (const [reply, pattern] of replies) {
      const { url } = await server((_posted, res) => reply(res));
      await expect(new HttpEmbedder({ url, model: 'm' }).embed(['a'])).rejects.toEqual(failure(new RegExp(`${url}.*${pattern.source}`)));
      await stub?.close();
      stub = undefined;
    }
  });

  it('reports a count mismatch', async () => {
    const { url } = await server((_posted, res) => sendJson(res, 200, { data: [{ index: 0, embedding: [1, 2] }] }));
    await expect(new HttpEmbedder({ url, model: 'm' }).embed(['a', 'b'])).rejects.toEqual(failure(/sent 1 embeddings for 2 texts/));
  });

  it('reports an unreachable server by URL, as retryable', async () => {
    const url = await refusedUrl();
    const error = await new HttpEmbedder({ url, model: 'm' }).embed(['a']).catch((e: unknown) => e);
    expect(error).toEqual(failure(new RegExp(`^cannot reach the embedding server at ${url}: connection refused$`)));
    expect((error as { retryable: boolean }).retryable).toBe(true);
  });

  it('gives up after the timeout when the server never answers', async () => {
    // A real 200 ms wait: the timeout races a real socket, which fake timers cannot drive.
    const { url } = await server(() => undefined);
    const started = Date.now();
    await expect(new HttpEmbedder({ url, model: 'm', timeoutMs: 200 }).embed(['a'])).rejects.toEqual(
      failure(/sent no complete answer within 200 ms/),
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("stops when the caller's signal aborts, with its own code", async () => {
    const { url, posted } = await server(() => undefined);
    const controller = new AbortController();
    const pending = new HttpEmbedder({ url, model: 'm' }).embed(['a'], { signal: controller.signal });
    await waitFor(() => (posted.length > 0 ? true : undefined), 'the request');
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: MEMORY_EMBEDDER_CANCELLED });
    const aborted = AbortSignal.abort();
    await expect(new HttpEmbedder({ url, model: 'm' }).embed(['a'], { signal: aborted })).rejects.toMatchObject({ code: MEMORY_EMBEDDER_CANCELLED });
  });

  it('refuses a URL that is not one, or holds credentials, and a bad timeout', () => {
    for (const options of [
      { url: 'not a url', model: 'm' },
      { url: 'http://user:pw@localhost:8181/v1', model: 'm' },
      { url: 'http://localhost:8181/v1', model: 'm', timeoutMs: 0 },
    ]) {
      expect(() => new HttpEmbedder(options)).toThrow(expect.objectContaining({ code: MEMORY_EMBEDDER_BAD_OPTIONS }));
    }
  });
});
