import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { CLI } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

let home: TempDir;
let llm: ScriptedLlmServer;
beforeEach(async () => {
  home = await makeTempDir('da-chat-');
  llm = await startScriptedLlmServer({ split: 'bytes' });
  await home.write('config/config.toml', `llm = "${llm.url}"\n`);
});
afterEach(async () => {
  await llm.close();
  await home.remove();
});

function chat(input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, 'chat', '--config-dir', join(home.path, 'config')],
      { env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

describe('desktop-assistant chat', () => {
  it('holds a conversation with history until /quit', async () => {
    llm.enqueue({ text: 'Hi! Nice to meet you.' }, (request) => ({ text: `You said ${request.messages.length - 1} things so far.` }));
    const run = await chat('Hello\nAnd again\n/quit\nnever read\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('assistant> Hi! Nice to meet you. \n');
    expect(run.stdout).toContain('assistant> You said 3 things so far. \n');
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('reports a failed turn and goes on to the next', async () => {
    llm.enqueue({ fail: 'http-500', message: 'model crashed' }, { text: 'Better now.' });
    const run = await chat('One\nTwo\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\(.*model crashed.*\)/);
    expect(run.stdout).toContain('assistant> Better now.');
  });
});
