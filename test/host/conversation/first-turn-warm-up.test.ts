import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { OpenAiLlm, type LlmEvent } from '../../../src/host/llm/index.js';
import { SCRIPTED_MODEL, startScriptedLlmServer, type ScriptedLlmServer } from '../../fakes/scripted-llm-server.js';
import { refusedUrl } from '../../helpers/http-stub.js';

// The host warms the LLM client up while its servers start (startHost), so a first turn does not find the model itself.
let server: ScriptedLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const llmAt = (baseUrl: string, model?: string): OpenAiLlm => new OpenAiLlm({ baseUrl, requestTimeoutMs: 5000, ...(model ? { model } : {}) });

async function drain(stream: AsyncIterable<LlmEvent>): Promise<void> {
  for await (const _event of stream) {
    // Only the request matters here.
  }
}

const question = { messages: [{ role: 'user' as const, content: 'Hello?' }] };

describe('warming the LLM client up', () => {
  it('finds an unconfigured model once, so the first request asks for no model list', async () => {
    server = await startScriptedLlmServer({ replies: [{ text: 'Hi.' }] });
    const llm = llmAt(server.url);
    await llm.warmUp();
    expect(server.modelListRequests).toBe(1);
    await drain(llm.stream(question));
    expect(server.modelListRequests).toBe(1);
    expect(server.requests[0]?.model).toBe(SCRIPTED_MODEL);
  });

  it('with a configured model, asks the list without using it', async () => {
    server = await startScriptedLlmServer({ replies: [{ text: 'Hi.' }], models: ['other-model'] });
    const llm = llmAt(server.url, 'configured-model');
    await llm.warmUp();
    expect(server.modelListRequests).toBe(1);
    await drain(llm.stream(question));
    expect(server.requests[0]?.model).toBe('configured-model');
  });

  it('never rejects, and a failure is not kept: the first request asks again and reports it', async () => {
    const llm = llmAt(await refusedUrl());
    await expect(llm.warmUp()).resolves.toBeUndefined();
    const failure = await drain(llm.stream(question)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isAppError(failure, 'LLM_UNREACHABLE')).toBe(true);
  });

  it('stops at once when its signal aborts', async () => {
    const llm = llmAt(await refusedUrl());
    const controller = new AbortController();
    controller.abort();
    await expect(llm.warmUp({ signal: controller.signal })).resolves.toBeUndefined();
  });
});
