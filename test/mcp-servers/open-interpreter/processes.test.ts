import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StdioServerHandle } from '../../helpers/mcp-stdio.js';
import { isRunning } from '../../helpers/process-state.js';
import { waitFor } from '../../helpers/wait-for.js';
import { TOOL, callRun, errorOf, makeInterpreterFixture, type InterpreterFixture } from './fixture.js';

let fixture: InterpreterFixture | undefined;
let server: StdioServerHandle | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  await fixture?.root.remove();
  fixture = undefined;
});

/** The stand-in's pid and its own child's, once a `hang:` task has started. */
function hangPids(work: string): Promise<number[]> {
  return waitFor(
    () =>
      readFile(join(work, 'stand-in.pids'), 'utf8').then(
        (text) => {
          const pids = text.split('\n').filter(Boolean).map(Number);
          return pids.length === 2 ? pids : undefined;
        },
        () => undefined,
      ),
    'the stand-in to write its pids',
  );
}

async function expectAllEnded(pids: number[]): Promise<void> {
  for (const pid of pids) await waitFor(() => (isRunning(pid) ? undefined : true), `pid ${pid} to end`, 3000);
}

describe('the open-interpreter MCP server: the command', () => {
  it('answers OPENINTERPRETER_UNAVAILABLE when the command is missing, stays up, and finds it once installed', async () => {
    fixture = await makeInterpreterFixture({ installed: false });
    expect(existsSync(join(dirname(process.execPath), 'interpreter'))).toBe(false);
    server = await fixture.connect();
    expect((await server.client.listTools()).tools.map((t) => t.name)).toEqual([TOOL]);

    const error = errorOf(await callRun(server, { task: 'list the files here' }));
    expect(error).toMatchObject({ code: 'OPENINTERPRETER_UNAVAILABLE', command: 'interpreter' });
    expect(error.message).toContain('"interpreter" was not found on PATH');

    // Looked up at each call: installing it needs no restart.
    await fixture.install();
    const answer = await callRun(server, { task: 'list the files here' });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('The task is done.');
  });

  it('names a configured path that is not executable', async () => {
    fixture = await makeInterpreterFixture();
    await fixture.writeConfig({ command: join(fixture.root.path, 'no/such/interpreter') });
    server = await fixture.connect();
    const error = errorOf(await callRun(server, { task: 'hello' }));
    expect(error.code).toBe('OPENINTERPRETER_UNAVAILABLE');
    expect(error.message).toContain(join(fixture.root.path, 'no/such/interpreter'));
  });

  it('answers OPENINTERPRETER_FAILED with the exit code and the end of stderr', async () => {
    fixture = await makeInterpreterFixture();
    server = await fixture.connect();
    const error = errorOf(await callRun(server, { task: 'fail: please' }));
    expect(error).toMatchObject({ code: 'OPENINTERPRETER_FAILED', exitCode: 3, signal: null });
    expect(error.message).toBe('Open Interpreter exited with code 3: litellm.AuthenticationError: no API key');
    expect(error.stderr).toBe('Traceback (most recent call last):\n  File "interpreter", line 1\nlitellm.AuthenticationError: no API key');
    expect(error.stdout).toBe('Thinking...');
  });
});

describe('the open-interpreter MCP server: limits', () => {
  it('stops a task at the timeout, with every process of its group', async () => {
    fixture = await makeInterpreterFixture();
    await fixture.writeConfig({ timeout: 0.5 });
    server = await fixture.connect();
    const started = Date.now();
    const answer = await callRun(server, { task: 'hang: forever' });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(errorOf(answer)).toMatchObject({ code: 'OPENINTERPRETER_TIMEOUT' });
    expect(errorOf(answer).message).toContain('within 0.5 s');
    await expectAllEnded(await hangPids(fixture.work));
  });

  it('stops the task and its children when the client cancels the call', async () => {
    fixture = await makeInterpreterFixture();
    server = await fixture.connect();
    const controller = new AbortController();
    const pending = server.client.callTool({ name: TOOL, arguments: { task: 'hang: until cancelled' } }, undefined, { signal: controller.signal });
    const pids = await hangPids(fixture.work);
    expect(pids.every(isRunning)).toBe(true);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expectAllEnded(pids);
    // The server goes on serving.
    expect((await callRun(server, { task: 'still there?' })).isError).toBe(false);
  });

  it('keeps the start and end of long output with a visible mark', async () => {
    fixture = await makeInterpreterFixture();
    await fixture.writeConfig({ maxOutputChars: 200 });
    server = await fixture.connect();
    const answer = await callRun(server, { task: 'flood:5000' });
    expect(answer.isError).toBe(false);
    // 5000 characters and a newline: 200 kept, 4801 left out.
    expect(answer.text).toMatch(/^<begin>x+\n\[\.\.\. output truncated: 4801 characters left out \.\.\.\]\nx+<end>\n$/);
    expect(answer.text.replace(/\n\[.*\]\n/, '')).toHaveLength(200);
    expect(answer.meta['desktop-assistant/truncated']).toBe(true);

    const short = await callRun(server, { task: 'flood:150' });
    expect(short.text).toBe(`<begin>${'x'.repeat(138)}<end>\n`);
    expect(short.meta['desktop-assistant/truncated']).toBe(false);
  });
});
