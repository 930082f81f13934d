/**
 * OpenAiLlm.probe over real HTTP: GET /models against the scripted
 * stand-in, a closed port, a server that answers 503 (llama-server loading
 * its model) and one that accepts and never answers. Each failure is
 * LLM_UNREACHABLE with the server's URL and what happened, in words.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiLlm } from '../../../src/host/llm/index.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../fakes/scripted-llm-server.js';

function llmAt(baseUrl: string, model?: string): OpenAiLlm {
  return new OpenAiLlm({ baseUrl, requestTimeoutMs: 5000, ...(model ? { model } : {}) });
}

describe('probing the LLM server', () => {
  let server: ScriptedLlmServer | undefined;
  let silent: { server: Server; sockets: Socket[] } | undefined;
  afterEach(async () => {
    await server?.close();
    for (const socket of silent?.sockets ?? []) socket.destroy();
    await new Promise((resolve) => (silent ? silent.server.close(resolve) : resolve(undefined)));
    server = undefined;
    silent = undefined;
  });

  it('resolves when the server lists its models, and keeps nothing', async () => {
    server = await startScriptedLlmServer();
    const llm = llmAt(server.url, 'configured');
    await llm.probe({ timeoutMs: 2000 });
    await llm.probe({ timeoutMs: 2000 });
    expect(server.modelListRequests).toBe(2);
    expect(server.requests).toEqual([]);
  });

  it('a closed port: does not answer, connection refused', async () => {
    server = await startScriptedLlmServer();
    const url = server.url;
    await server.close();
    await expect(llmAt(url).probe({ timeoutMs: 2000 })).rejects.toMatchObject({ code: 'LLM_UNREACHABLE', message: `the LLM server at ${url} does not answer: connection refused` });
  });

  it('HTTP 503 while the model loads: the status and the server\'s words', async () => {
    server = await startScriptedLlmServer({ modelsStatus: 503 });
    await expect(llmAt(server.url).probe({ timeoutMs: 2000 })).rejects.toMatchObject({
      code: 'LLM_UNREACHABLE',
      message: `the LLM server at ${server.url} answers GET /models with HTTP 503: model list unavailable`,
    });
  });

  it('a server that accepts and never answers: nothing within the probe\'s time', async () => {
    const sockets: Socket[] = [];
    const hanging = createServer((socket) => void sockets.push(socket));
    silent = { server: hanging, sockets };
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hanging.address() as { port: number }).port}/v1`;
    await expect(llmAt(url).probe({ timeoutMs: 200 })).rejects.toMatchObject({ code: 'LLM_UNREACHABLE', message: `the LLM server at ${url} does not answer: nothing within 200 ms` });
  });

  it('an API key in the URL is refused before any request, and never shown', async () => {
    await expect(llmAt('http://user:s3cret-key@127.0.0.1:9/v1').probe({ timeoutMs: 200 })).rejects.toMatchObject({ code: 'LLM_UNREACHABLE', message: expect.not.stringContaining('s3cret') });
  });
});
