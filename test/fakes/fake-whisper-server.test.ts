import { afterEach, describe, expect, it } from 'vitest';
import { encodeWav } from '../../src/voice/audio/index.js';
import { startFakeWhisperServer, type FakeWhisperServer } from './fake-whisper-server.js';

const samples = Int16Array.from({ length: 1600 }, (_, i) => Math.round(Math.sin(i / 10) * 8000));

function form(fields: Record<string, string>, file: Uint8Array | null = encodeWav({ sampleRate: 16_000, channels: 1, samples })): FormData {
  const out = new FormData();
  if (file !== null) out.append('file', new Blob([new Uint8Array(file)], { type: 'audio/wav' }), 'a.wav');
  for (const [name, value] of Object.entries(fields)) out.append(name, value);
  return out;
}

let server: FakeWhisperServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('fake whisper-server', () => {
  it('answers verbose_json the way whisper-server does and records the form', async () => {
    server = await startFakeWhisperServer({ replies: [{ text: 'Ciao a tutti.', language: 'italian', avgLogprob: -0.5 }] });
    const response = await fetch(`${server.url}/inference`, { method: 'POST', body: form({ response_format: 'verbose_json', temperature: '0.2', language: 'auto' }) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ task: 'transcribe', language: 'italian', duration: 0.1, text: ' Ciao a tutti.', detected_language: 'italian' });
    expect(body.segments).toMatchObject([{ id: 0, text: ' Ciao a tutti.', temperature: 0.2, avg_logprob: -0.5, no_speech_prob: 0.01 }]);
    const [request] = server.requests;
    expect(request?.fields).toEqual({ response_format: 'verbose_json', temperature: '0.2', language: 'auto' });
    expect(request?.file?.name).toBe('a.wav');
    expect(request?.samples).toEqual(samples);
    expect(await request?.closed).toEqual({ beforeEnd: false });
  });

  it('answers json and text formats, and empty text with no segments', async () => {
    server = await startFakeWhisperServer({ replies: [{ text: 'one' }, { text: 'two' }, {}] });
    const json = await fetch(`${server.url}/inference`, { method: 'POST', body: form({}) });
    expect(await json.json()).toEqual({ text: ' one' });
    const text = await fetch(`${server.url}/inference`, { method: 'POST', body: form({ response_format: 'text' }) });
    expect(await text.text()).toBe(' two');
    const empty = await fetch(`${server.url}/inference`, { method: 'POST', body: form({ response_format: 'verbose_json' }) });
    expect(await empty.json()).toMatchObject({ text: '', segments: [] });
  });

  it("rejects what whisper-server rejects: no file, audio it cannot read, unknown paths", async () => {
    server = await startFakeWhisperServer({ replies: [{ text: 'unused' }] });
    const noFile = await fetch(`${server.url}/inference`, { method: 'POST', body: form({ language: 'en' }, null) });
    expect([noFile.status, await noFile.json()]).toEqual([400, { error: "no 'file' field in the request" }]);
    const stereo = encodeWav({ sampleRate: 16_000, channels: 2, samples: new Int16Array(4) });
    const badAudio = await fetch(`${server.url}/inference`, { method: 'POST', body: form({}, stereo) });
    expect([badAudio.status, await badAudio.json()]).toEqual([400, { error: 'failed to read audio data' }]);
    const notFound = await fetch(`${server.url}/transcribe`, { method: 'POST', body: form({}) });
    expect([notFound.status, await notFound.text()]).toEqual([404, 'File Not Found (/transcribe)']);
  });

  it('reports health, loading included', async () => {
    server = await startFakeWhisperServer({ health: 'loading' });
    const loading = await fetch(`${server.url}/health`);
    expect([loading.status, await loading.json()]).toEqual([503, { status: 'loading model' }]);
    server.setHealth('ok');
    const ok = await fetch(`${server.url}/health`);
    expect([ok.status, await ok.json()]).toEqual([200, { status: 'ok' }]);
    expect(server.healthChecks).toBe(2);
  });

  it('plays failures and replies computed from the request', async () => {
    server = await startFakeWhisperServer();
    server.enqueue({ fail: 'http-500' }, { fail: 'http-error', status: 422, message: 'nope' }, { fail: 'not-json' }, (request) => ({ text: request.fields.language ?? '?' }));
    const post = () => fetch(`${server!.url}/inference`, { method: 'POST', body: form({ language: 'de' }) });
    const r500 = await post();
    expect([r500.status, await r500.json()]).toEqual([500, { error: 'failed to process audio' }]);
    const r422 = await post();
    expect([r422.status, await r422.json()]).toEqual([422, { error: 'nope' }]);
    await expect((await post()).json()).rejects.toThrow();
    expect(await (await post()).json()).toEqual({ text: ' de' });
    const exhausted = await post();
    expect(exhausted.status).toBe(500);
  });

  it('hangs until the client goes away, and can reset the connection', async () => {
    server = await startFakeWhisperServer({ replies: [{ fail: 'hang' }, { fail: 'reset' }] });
    const controller = new AbortController();
    const hanging = fetch(`${server.url}/inference`, { method: 'POST', body: form({}), signal: controller.signal });
    await expect.poll(() => server!.requests.length).toBe(1);
    controller.abort();
    await expect(hanging).rejects.toThrow();
    expect(await server.requests[0]?.closed).toEqual({ beforeEnd: true });
    await expect(fetch(`${server.url}/inference`, { method: 'POST', body: form({}) })).rejects.toThrow('fetch failed');
  });

  it('answers slowly when told to', async () => {
    server = await startFakeWhisperServer({ replies: [{ text: 'late', delayMs: 150 }] });
    const started = performance.now();
    const response = await fetch(`${server.url}/inference`, { method: 'POST', body: form({}) });
    expect(await response.json()).toEqual({ text: ' late' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });
});
