import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  STT_BAD_OPTIONS,
  STT_BAD_RESPONSE,
  STT_CANCELLED,
  STT_HTTP_ERROR,
  STT_TIMEOUT,
  STT_UNREACHABLE,
  WhisperServerStt,
  whisperLanguageCode,
} from '../../../src/voice/stt/index.js';
import type { Transcript } from '../../../src/voice/types.js';
import { startFakeWhisperServer, type FakeWhisperServer } from '../../fakes/fake-whisper-server.js';
import { collect, failureWithRetry } from '../../helpers/outcomes.js';

const audio = Int16Array.from({ length: 8000 }, (_, i) => Math.round(Math.sin(i / 7) * 6000));

/** A loopback port that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let server: FakeWhisperServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('WhisperServerStt', () => {
  it('posts the utterance as a 16 kHz WAV with verbose_json and yields one final with language and confidence', async () => {
    server = await startFakeWhisperServer({ replies: [{ text: 'Accendi la luce.', language: 'italian', avgLogprob: -0.2 }] });
    const stt = new WhisperServerStt({ url: `${server.url}/` });
    const results = await collect(stt.transcribe(audio));
    expect(results).toEqual([{ text: 'Accendi la luce.', final: true, language: 'it', confidence: Math.exp(-0.2) }]);
    const [request] = server.requests;
    expect(request?.fields).toEqual({ response_format: 'verbose_json', temperature: '0', language: 'auto' });
    expect(request?.file?.type).toBe('audio/wav');
    expect(request?.samples).toEqual(audio);
    await stt.close();
  });

  it('sends a fixed language and temperature; a call can override the language', async () => {
    server = await startFakeWhisperServer({ replies: [{ text: 'hello' }, { text: 'hallo', language: 'german' }] });
    const stt = new WhisperServerStt({ url: server.url, language: 'en', temperature: 0.4 });
    expect((await collect(stt.transcribe(audio)))[0]?.language).toBe('en');
    expect((await collect(stt.transcribe(audio, { language: 'de' })))[0]?.language).toBe('de');
    expect(server.requests.map((request) => [request.fields.language, request.fields.temperature])).toEqual([
      ['en', '0.4'],
      ['de', '0.4'],
    ]);
  });

  it('gives empty text and no confidence when whisper heard nothing', async () => {
    server = await startFakeWhisperServer({ replies: [{ text: '' }] });
    const results = await collect(new WhisperServerStt({ url: server.url }).transcribe(new Int16Array(1600)));
    expect(results).toEqual([{ text: '', final: true, language: 'en' }]);
  });

  it('names the URL when the server is unreachable', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await failureWithRetry(collect(new WhisperServerStt({ url }).transcribe(audio)));
    expect(error).toEqual({ code: STT_UNREACHABLE, message: `cannot reach the whisper-server at ${url}: connection refused (is it running?)`, retryable: true });
  });

  it("turns a non-2xx answer into STT_HTTP_ERROR with the server's words", async () => {
    server = await startFakeWhisperServer({ replies: [{ fail: 'http-500' }, { fail: 'http-error', status: 400, message: 'failed to read audio data' }] });
    const stt = new WhisperServerStt({ url: server.url });
    expect(await failureWithRetry(collect(stt.transcribe(audio)))).toEqual({
      code: STT_HTTP_ERROR,
      message: `the whisper-server at ${server.url} answered HTTP 500: failed to process audio`,
      retryable: true,
    });
    expect(await failureWithRetry(collect(stt.transcribe(audio)))).toMatchObject({ code: STT_HTTP_ERROR, retryable: false });
  });

  it('quotes a plain-text error body, as for a wrong path', async () => {
    server = await startFakeWhisperServer();
    const stt = new WhisperServerStt({ url: `${server.url}/v1` });
    expect((await failureWithRetry(collect(stt.transcribe(audio)))).message).toBe(`the whisper-server at ${server.url}/v1 answered HTTP 404: File Not Found (/v1/inference)`);
  });

  it('rejects a reply that is not JSON, or has no text, without quoting it', async () => {
    server = await startFakeWhisperServer({ replies: [{ fail: 'not-json' }, { fail: 'no-text' }] });
    const stt = new WhisperServerStt({ url: server.url });
    const notJson = await failureWithRetry(collect(stt.transcribe(audio)));
    expect(notJson).toMatchObject({ code: STT_BAD_RESPONSE, message: `the whisper-server at ${server.url} sent a reply that is not JSON` });
    expect(await failureWithRetry(collect(stt.transcribe(audio)))).toMatchObject({ code: STT_BAD_RESPONSE, message: expect.stringContaining('"text"') });
  });

  it('times out a server that does not answer, and closes the connection', async () => {
    server = await startFakeWhisperServer({ replies: [{ fail: 'hang' }] });
    const error = await failureWithRetry(collect(new WhisperServerStt({ url: server.url, timeoutMs: 150 }).transcribe(audio)));
    expect(error).toEqual({ code: STT_TIMEOUT, message: `the whisper-server at ${server.url} sent no complete answer within 150 ms`, retryable: true });
    expect(await server.requests[0]?.closed).toEqual({ beforeEnd: true });
  });

  it('waits for a slow server within its timeout', async () => {
    server = await startFakeWhisperServer({ replies: [{ text: 'slow but sure', delayMs: 200 }] });
    const results = await collect(new WhisperServerStt({ url: server.url, timeoutMs: 5000 }).transcribe(audio));
    expect(results[0]?.text).toBe('slow but sure');
  });

  it('cancels on abort, closing the request so whisper-server stops decoding', async () => {
    server = await startFakeWhisperServer({ replies: [{ fail: 'hang' }] });
    const controller = new AbortController();
    const pending = failureWithRetry(collect(new WhisperServerStt({ url: server.url }).transcribe(audio, { signal: controller.signal })));
    await expect.poll(() => server!.requests.length).toBe(1);
    controller.abort();
    expect((await pending).code).toBe(STT_CANCELLED);
    expect(await server.requests[0]?.closed).toEqual({ beforeEnd: true });
  });

  it('sends nothing when already aborted, and refuses a bad URL or timeout up front', async () => {
    server = await startFakeWhisperServer();
    const signal = AbortSignal.abort();
    expect((await failureWithRetry(collect(new WhisperServerStt({ url: server.url }).transcribe(audio, { signal })))).code).toBe(STT_CANCELLED);
    expect(server.requests).toHaveLength(0);
    expect(() => new WhisperServerStt({ url: 'localhost 8182' })).toThrow(expect.objectContaining({ code: STT_BAD_OPTIONS }));
    expect(() => new WhisperServerStt({ url: server!.url, timeoutMs: 0 })).toThrow(expect.objectContaining({ code: STT_BAD_OPTIONS }));
  });

  it("maps whisper's language names to codes", () => {
    expect(['english', 'Italian', 'haitian creole', 'cantonese', 'it', 'klingon', undefined].map(whisperLanguageCode)).toEqual([
      'en',
      'it',
      'ht',
      'yue',
      'it',
      undefined,
      undefined,
    ]);
  });
});
