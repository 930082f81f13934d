import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal OpenAI-compatible chat server for the voice benchmarks: every
 * request is answered with the same reply, streamed as llama-server streams
 * (SSE chunks of a few words, then a finish chunk and [DONE]), at once.
 */
export async function startBenchLlm(reply: string): Promise<{ url: string; close(): Promise<void>; chatRequestsAtMs: number[] }> {
  /** When each chat request's head arrived (Date.now), for the host's time before it. */
  const chatRequestsAtMs: number[] = [];
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model' }] }));
      return;
    }
    chatRequestsAtMs.push(Date.now());
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
        `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', created: 0, model: 'bench-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      response.write(chunk({ role: 'assistant', content: '' }));
      for (const piece of reply.match(/\S+\s*/g) ?? []) response.write(chunk({ content: piece }));
      response.write(chunk({}, 'stop'));
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    chatRequestsAtMs,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
