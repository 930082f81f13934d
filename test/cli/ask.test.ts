import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { refusedUrl } from '../helpers/http-stub.js';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

let home: TempDir;
let llm: ScriptedLlmServer;
let env: Record<string, string>;

beforeEach(async () => {
  home = await makeTempDir('da-ask-');
  llm = await startScriptedLlmServer({ split: { seed: 3, maxBytes: 7 } });
  env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') };
  await home.write('config/tools/forecast.sh', '#!/bin/sh\necho "Sunny, 21 degrees in $1"\n', 0o755);
  await home.write(
    'config/tools/weather.toml',
    'description = "Weather"\ncommand = ["forecast.sh", "{place}"]\nannounce.en = ["Checking the weather."]\n[params.place]\n',
  );
  await home.write('config/tools/note.toml', 'description = "Write a note"\ncommand = ["echo", "noted {text}"]\nrisk = "write"\n[params.text]\n');
  await writeConfig('');
});
afterEach(async () => {
  await llm.close();
  await home.remove();
});

async function writeConfig(extra: string): Promise<void> {
  await home.write('config/config.toml', `llm = "${llm.url}"\n${extra}`);
}

/** The CLI with stdin fed (for confirmations); the other helper closes stdin at once. */
function ask(question: string, stdin = '', extraEnv: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, 'ask', '--config-dir', join(home.path, 'config'), question],
      { env: { ...process.env, ...env, ...extraEnv }, cwd: REPO_ROOT },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

describe('desktop-assistant ask', () => {
  it('answers a question that needs a tool, and the audit shows the call', async () => {
    llm.enqueue({ toolCalls: [{ name: 'weather', arguments: '{"place": "Rome"}' }] }, (request) => ({
      text: `The tool said: ${String(request.messages.find((m) => m.role === 'tool')?.content)}. Enjoy!`,
    }));
    const run = await ask("What's the weather in Rome?");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The tool said: Sunny, 21 degrees in Rome.\nEnjoy!\n');
    expect(run.stderr).toContain('[say] Checking the weather.');
    expect(run.stderr).toMatch(/\[tool\] weather: ok, \d+ ms, 25 chars/);

    const audit = await runCli(['audit', '--json', '--config-dir', join(home.path, 'config')], env);
    expect(audit.code).toBe(0);
    const records = audit.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ tool: 'weather', server: 'tools', entry: 'text', risk: 'read', decision: 'allow', decidedBy: 'policy', status: 'ok', outputChars: 25 });
  });

  it('asks on the terminal before a write tool runs: yes runs it', async () => {
    llm.enqueue({ toolCalls: [{ name: 'note', arguments: '{"text": "milk"}' }] }, (request) => ({
      text: String(request.messages.find((m) => m.role === 'tool')?.content),
    }));
    const run = await ask('Note milk', 'y\n');
    expect(run.stderr).toContain('Allow note (write risk, server tools) with {"text":"milk"}? [y/N]');
    expect(run.stdout).toBe('noted milk\n');
  });

  it('asks on the terminal before a write tool runs: no refuses it and the model is told', async () => {
    llm.enqueue({ toolCalls: [{ name: 'note', arguments: '{"text": "milk"}' }] }, (request) => ({
      text: JSON.parse(String(request.messages.find((m) => m.role === 'tool')?.content)).error.code,
    }));
    const run = await ask('Note milk', 'n\n');
    expect(run.stdout).toBe('TOOL_DENIED_BY_USER\n');
  });

  it('ends a reply that never ends at max_reply_seconds with what came, and says so', async () => {
    await writeConfig('max_reply_seconds = 1\nmax_reply_tokens = 50\n');
    llm.enqueue({ text: 'It will be sunny.', fail: 'endless' });
    const started = Date.now();
    const run = await ask('Tell me everything');
    expect(Date.now() - started).toBeLessThan(8000);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^It will be sunny\.\n(And more\.\n)+/);
    expect(run.stderr).toContain('[error] LLM_REPLY_CAPPED: the reply was cut off after 1 s (max_reply_seconds)');
    // The token cap went to the server with the request.
    expect(llm.requests[0]!.body.max_tokens).toBe(50);
  });

  it('prints a long reply with no sentence end as it streams, not when it ends', async () => {
    // Without a maximum segment length no text of this reply is printed until max_reply_seconds.
    await writeConfig('max_reply_seconds = 60\n');
    let streaming = true;
    llm.enqueue((request) => {
      // `closed` only resolves (on the socket's close).
      void request.closed.then(() => (streaming = false));
      return { text: 'So', fail: 'endless-run-on' };
    });
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, 'ask', '--config-dir', join(home.path, 'config'), 'Talk forever'], {
      env: { ...process.env, ...env },
      cwd: REPO_ROOT,
    });
    child.stdin.end();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => void (stderr += data.toString()));
    const firstLine = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (data: Buffer) => {
        stdout += data.toString();
        if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
      });
      // `exited` only resolves (on the child's exit).
      void exited.then(() => reject(new Error(`ask exited before printing a line: ${stderr}`)));
    });

    try {
      const line = await firstLine;
      // The reply is still streaming: the server ends it only when the client goes away, at the
      // 60 s cap or at the interrupt below.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(streaming).toBe(true);
      // Cut within the limit after a dot that ended no sentence.
      expect(line).toMatch(/^So( word word\.)+$/);
      expect(line.length).toBeLessThanOrEqual(250);

      child.kill('SIGINT');
      await exited;
      expect(await llm.requests[0]!.closed).toEqual({ beforeEnd: true });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('says when the server cut a reply at max_reply_tokens', async () => {
    llm.enqueue({ text: 'The first part of a long', finishReason: 'length' });
    const run = await ask('Tell me everything');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The first part of a long');
    expect(run.stderr).toContain('[error] LLM_REPLY_CAPPED: the reply was cut off at 1024 tokens (max_reply_tokens)');
  });

  it('says which URL it cannot reach, and exits 1 without a crash', async () => {
    const url = `${await refusedUrl()}/v1`;
    await home.write('config/config.toml', `llm = "${url}"\n`);
    const run = await ask('Hello?');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('LLM_UNREACHABLE');
    expect(run.stderr).toContain(url.replace(/\/v1$/, ''));
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('gives an untrusted third-party server no secrets from the environment', async () => {
    const everything = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    await writeConfig(`[mcp.everything]\ncommand = "${process.execPath}"\nargs = ["${everything}", "stdio"]\nenv = { GIVEN_ON_PURPOSE = "yes" }\nrisk = { get-env = "read" }\n`);
    llm.enqueue({ toolCalls: [{ name: 'get-env', arguments: '{}' }] }, { text: 'Done.' });
    const run = await ask('Show the environment', '', { MY_SERVICE_API_KEY: 'do-not-leak-4242' });
    expect(run.code).toBe(0);
    const toolResult = String(llm.requests[1]?.messages.find((m) => m.role === 'tool')?.content);
    expect(toolResult).toContain('GIVEN_ON_PURPOSE');
    expect(toolResult).toContain('PATH');
    expect(toolResult).not.toContain('do-not-leak-4242');
    expect(toolResult).not.toContain('MY_SERVICE_API_KEY');
  });
});
