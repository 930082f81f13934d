/**
 * The LLM server killed mid-reply and started again under a running daemon
 * (`desktop-assistant run --no-voice`, the compiled CLI, real HTTP; the
 * scripted LLM stand-in as a process of its own, killed with SIGKILL as a
 * crashed llama-server goes, and started again on the same port):
 * - the reply under way ends with LLM_STREAM_BROKEN naming the server, and
 *   the sentences already streamed stay the reply's and the history's;
 * - /state says the LLM server is missing, in words, and keeps saying it;
 *   /health, /mcp and text turns (a clear LLM_UNREACHABLE) answer meanwhile;
 * - once the server serves again /state clears within 3 s, by itself, and
 *   the next question is answered with the history whole;
 * - the terminal says so once each way, the daemon never exits, and it
 *   keeps no extra descriptor or child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { StateBody, StreamedEvent, TurnBody } from '../../src/host/http/index.js';
import { resultText } from '../helpers/mcp-stdio.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { DIST } from '../helpers/paths.js';
import { childProcesses, isRunning } from '../helpers/process-state.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

const LLM_PROCESS = join(DIST, 'test/support/scripted-llm-process.js');
const FIRST_SENTENCE = 'The first sentence of a long answer about the weather.';

interface LlmProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** When it printed that it listens (Date.now): from then on it serves. */
  servingAtMs: number;
}

/** The stand-in in its own process; `replies` first, then it echoes what it was asked. */
async function startLlm(config: { port?: number; replies?: unknown[] }): Promise<LlmProcess> {
  const child = spawn(process.execPath, [LLM_PROCESS, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the scripted LLM exited (${child.exitCode}): ${err}`);
      return /^listening (\S+)$/m.exec(out)?.[1];
    },
    'the scripted LLM to listen',
    10_000,
  );
  return { url, port: Number(new URL(url).port), child, servingAtMs: Date.now() };
}

async function killLlm(llm: LlmProcess): Promise<void> {
  if (llm.child.exitCode !== null || llm.child.signalCode !== null) return;
  const exited = new Promise((resolve) => llm.child.once('exit', resolve));
  llm.child.kill('SIGKILL');
  await exited;
}

/** One request on its own connection (no keep-alive), so the daemon's descriptors are not the test's sockets. */
function send(method: string, url: string, options: { token?: string; body?: unknown; accept?: string } = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.accept) headers.accept = options.accept;
    const req = request(url, { method, headers, agent: false }, resolve);
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

async function json<T>(response: IncomingMessage): Promise<T> {
  let text = '';
  for await (const chunk of response) text += chunk.toString();
  return JSON.parse(text) as T;
}

/** Server-Sent Events as they come: each `data:` line parsed. */
async function* sseEvents(response: IncomingMessage): AsyncGenerator<StreamedEvent> {
  let buffer = '';
  for await (const chunk of response) {
    buffer += chunk.toString();
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (data) yield JSON.parse(data.slice(6)) as StreamedEvent;
    }
  }
}

function descriptorCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}


interface RunningDaemon {
  url: string;
  pid: number;
  token: string;
  stderr(): string;
  exitCode(): number | null;
  stop(): Promise<void>;
}

async function startDaemon(home: TempDir, llmUrl: string): Promise<RunningDaemon> {
  await home.write('config/config.toml', `llm = "${llmUrl}"\n${ONLY_TOOL_FILES}`);
  await home.write('config/tools/echo.toml', 'description = "Echo"\ncommand = ["echo", "{text}"]\n[params.text]\n');
  const env = { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run'), DESKTOP_ASSISTANT_CONFIG_DIR: '' };
  const daemon = await startDaemonProcess({
    args: ['--no-voice', '--port', '0', '--config-dir', join(home.path, 'config')],
    env,
    tokenFile: join(home.path, 'run', 'desktop-assistant', 'api-token'),
  });
  return { url: daemon.url, pid: daemon.pid, token: daemon.token, stderr: () => daemon.stderr(), exitCode: () => daemon.exitCode(), stop: () => daemon.stop() };
}

describe('the LLM server killed mid-reply and started again', () => {
  let home: TempDir | undefined;
  let daemon: RunningDaemon | undefined;
  const llms: LlmProcess[] = [];
  afterEach(async () => {
    await daemon?.stop();
    for (const llm of llms) await killLlm(llm);
    await home?.remove();
  });

  it('ends the reply with the error, says the server is missing while it is, and carries on within 3 s of its return', async () => {
    home = await makeTempDir('da-llm-restart-');
    const first = await startLlm({ replies: [{ text: 'Hello there.' }, { text: `${FIRST_SENTENCE} It goes on.`, fail: 'endless' }] });
    llms.push(first);
    daemon = await startDaemon(home, first.url);
    const { url, token, pid } = daemon;
    const state = async () => json<StateBody>(await send('GET', `${url}/state`, { token }));
    const turn = async (text: string) => json<TurnBody>(await send('POST', `${url}/turns`, { token, body: { text } }));

    // A first question answered, so the connections the daemon keeps (to the LLM, the tools server) are open before the count.
    expect(await turn('hello')).toMatchObject({ status: 'ok', reply: 'Hello there.' });
    expect((await state()).llm).toEqual({ url: first.url });
    const childrenBefore = childProcesses(pid).map((c) => c.pid);
    const descriptorsBefore = descriptorCount(pid);
    expect(childrenBefore.length).toBeGreaterThan(0);

    // A long reply, streamed; the server is killed once its first sentence has come.
    const question = 'tell me all about the weather this week';
    const stream = await send('POST', `${url}/turns`, { token, body: { text: question, stream: true } });
    const events: StreamedEvent[] = [];
    let killedAtMs = 0;
    for await (const event of sseEvents(stream)) {
      events.push(event);
      if (event.type === 'llm.sentence' && killedAtMs === 0) {
        await killLlm(first);
        killedAtMs = Date.now();
      }
    }
    const error = events.find((event) => event.type === 'error');
    expect(error).toMatchObject({ code: 'LLM_STREAM_BROKEN', message: expect.stringContaining(`the reply from the LLM server at ${first.url} broke off`) });
    expect(events.at(-1)).toMatchObject({ type: 'turn.ended', status: 'error', reply: expect.stringContaining(FIRST_SENTENCE) });

    // Missing, in words, from the first probe on.
    const missing = await waitFor(async () => (await state()).llm.missing, 'the LLM server to be missing in /state', 5000);
    const noticedMs = Date.now() - killedAtMs;
    expect(missing.message).toContain(`the LLM server at ${first.url} does not answer: connection refused`);
    const provider = (await state()).providers[0]!;
    expect(provider).toMatchObject({ health: 'error', detail: missing.message });

    // Meanwhile: /health, /mcp (tools need no LLM) and text turns (a clear error) answer; the daemon stays up.
    expect((await send('GET', `${url}/health`)).statusCode).toBe(200);
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'editor', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    expect(resultText(await client.callTool({ name: 'echo', arguments: { text: 'no model needed' } }))).toContain('no model needed');
    await transport.terminateSession();
    await client.close();
    const refused = await turn('is the model there?');
    expect(refused).toMatchObject({ status: 'error', error: { code: 'LLM_UNREACHABLE', message: expect.stringContaining(`${first.url}: connection refused`) } });
    // Still missing: kept true, not only after a failed turn.
    expect((await state()).llm.missing).toMatchObject({ sinceMs: missing.sinceMs });
    expect(daemon.exitCode()).toBeNull();

    // Started again on the same port: cleared by the daemon's own probe, no command.
    const second = await startLlm({ port: first.port });
    llms.push(second);
    expect(second.url).toBe(first.url);
    await waitFor(async () => ((await state()).llm.missing === undefined ? true : undefined), 'the LLM server to be back in /state', 5000);
    const clearedMs = Date.now() - second.servingAtMs;
    console.log(`LLM server restart: missing in /state ${noticedMs} ms after the kill; cleared ${clearedMs} ms after it served again`);
    expect(clearedMs).toBeLessThanOrEqual(3000);
    expect((await state()).providers[0]).toMatchObject({ health: 'ok' });

    // The next question is answered, with the history whole: the broken reply's question and its first sentence.
    const next = await turn('what did I ask before?');
    expect(next.status).toBe('ok');
    expect(next.reply).toContain('You asked: what did I ask before?');
    expect(next.reply).toContain(question);
    expect(next.reply).toContain(FIRST_SENTENCE);

    // The terminal said it once each way.
    const lines = daemon.stderr().split('\n');
    console.log(lines.filter((line) => line.startsWith('[llm] ') && !line.includes('first token')).join('\n'));
    expect(lines.filter((line) => line.startsWith('[llm] ') && line.includes('does not answer'))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith('[llm] ') && line.includes('answers again after'))).toHaveLength(1);

    // Nothing left behind: the same children, and the descriptors back to their count once idle connections close.
    expect(daemon.exitCode()).toBeNull();
    expect(childProcesses(pid).map((c) => c.pid)).toEqual(childrenBefore);
    expect(childrenBefore.every(isRunning)).toBe(true);
    const descriptorsAfter = await waitFor(() => (descriptorCount(pid) <= descriptorsBefore ? descriptorCount(pid) : undefined), `the daemon's descriptors back to ${descriptorsBefore}`, 15_000).catch(() => descriptorCount(pid));
    console.log(`daemon descriptors: ${descriptorsBefore} before, ${descriptorsAfter} after; children ${childrenBefore.length} before and after`);
    expect(descriptorsAfter).toBeLessThanOrEqual(descriptorsBefore);
  }, 90_000);
});
