/**
 * What `desktop-assistant mcp` and `tool-server` do with lines that are not
 * valid JSON-RPC, spoken to over their real stdin/stdout: a request with an
 * id gets an error with that id, a line that is not JSON a parse error, a
 * line over 10 MiB an error (and the server goes on), a bad notification a
 * log line on stderr.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

let home: TempDir;
let child: ChildProcessWithoutNullStreams | undefined;

beforeEach(async () => {
  home = await makeTempDir('da-bad-mcp-');
  await home.write('config/config.toml', ONLY_TOOL_FILES);
  await home.write('config/tools/echo.toml', 'description = "Echo"\ncommand = ["echo", "{text}"]\n[params.text]\n');
});
afterEach(async () => {
  child?.kill();
  child = undefined;
  await home.remove();
});

interface Peer {
  send(line: string | Buffer): void;
  answer(id: unknown): Promise<Record<string, any>>;
  stderr(): string;
}

function start(command: 'mcp' | 'tool-server'): Peer {
  child = spawn(process.execPath, [CLI, command, '--config-dir', `${home.path}/config`], {
    env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: `${home.path}/data` },
  });
  const answers: Record<string, any>[] = [];
  let carry = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (carry + chunk.toString()).split('\n');
    carry = lines.pop()!;
    for (const line of lines) if (line.trim() !== '') answers.push(JSON.parse(line) as Record<string, any>);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const proc = child;
  return {
    send: (line) => proc.stdin.write(line),
    answer: (id) => waitFor(() => answers.find((a) => a.id === id), `the answer to ${JSON.stringify(id)}`, 15_000),
    stderr: () => stderr,
  };
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });

describe.each(['mcp', 'tool-server'] as const)('desktop-assistant %s with bad JSON-RPC', (command) => {
  it('answers a request with an id and invalid params with an error carrying the id, and a non-JSON line with a parse error', async () => {
    const peer = start(command);
    peer.send(`${initialize}\n`);
    expect((await peer.answer(1)).result).toBeDefined();
    peer.send(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    peer.send('{"jsonrpc":"2.0","id":15,"method":"tools/call","params":"not an object"}\n');
    const bad = await peer.answer(15);
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.message).toMatch(/^Invalid params: /);
    peer.send('{"jsonrpc":"2.0","id":16,"params":{}}\n');
    expect((await peer.answer(16)).error.code).toBe(-32600);
    peer.send('this is not json\n');
    const parse = await peer.answer(null);
    expect(parse.error.code).toBe(-32700);
    // A notification cannot be answered: it is logged.
    peer.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}\n');
    await waitFor(() => (peer.stderr().split('mcp_message_invalid').length > 3 ? true : undefined), 'the log lines');
    // And the server still serves.
    peer.send(`${JSON.stringify({ jsonrpc: '2.0', id: 17, method: 'tools/list' })}\n`);
    const tools = (await peer.answer(17)).result.tools as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toContain('echo');
  }, 30_000);

  it('answers a line over 10 MiB with an error, says so on stderr, and goes on serving', async () => {
    const peer = start(command);
    peer.send(`${initialize}\n`);
    await peer.answer(1);
    const huge = Buffer.alloc(11 * 1024 * 1024, 'a');
    peer.send(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{"x":"'), huge, Buffer.from('"}}\n')]));
    const answer = await peer.answer(null);
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toContain('over 10485760 bytes');
    expect(peer.stderr()).toContain('mcp_message_too_long');
    peer.send(`${JSON.stringify({ jsonrpc: '2.0', id: 21, method: 'tools/list' })}\n`);
    expect((await peer.answer(21)).result.tools).toBeDefined();
  }, 30_000);
});
