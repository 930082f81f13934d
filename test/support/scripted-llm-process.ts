/**
 * The scripted LLM stand-in (test/fakes/scripted-llm-server.ts) as a process
 * of its own, so a test can kill it with SIGKILL mid-reply, as a crashed or
 * restarted llama-server goes, and start it again on the same port.
 *
 * `node dist/test/support/scripted-llm-process.js '<json>'` with
 * `{ port?: number, replies?: ScriptedReplySpec[] }`: plays the replies in
 * order, then answers every request with what it was asked (see
 * {@link echoReply}). Prints `listening <base url>` once it serves.
 */
import { startScriptedLlmServer, type RecordedChatRequest, type ScriptedReply, type ScriptedReplySpec } from '../fakes/scripted-llm-server.js';

export interface ScriptedLlmProcessConfig {
  port?: number;
  replies?: ScriptedReplySpec[];
}

/** Says the last question and the history before it, so a test can see what the model was given. */
export function echoReply(request: RecordedChatRequest): ScriptedReplySpec {
  const said = request.messages.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => String(m.content));
  const question = said.at(-1) ?? '';
  const before = said.slice(0, -1);
  return { text: `You asked: ${question}. Before it: ${before.length > 0 ? before.join(' / ') : 'nothing'}.` };
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as ScriptedLlmProcessConfig;
  const scripted = [...(config.replies ?? [])];
  const server = await startScriptedLlmServer({ ...(config.port === undefined ? {} : { port: config.port }), split: 'events' });
  // One reply function at the head of the script at all times: the scripted replies first, then echoes.
  const next: ScriptedReply = (request) => {
    server.enqueue(next);
    return scripted.shift() ?? echoReply(request);
  };
  server.enqueue(next);
  process.on('SIGTERM', () => void server.close().finally(() => process.exit(0)));
  process.stdout.write(`listening ${server.url}\n`);
}

await main();
