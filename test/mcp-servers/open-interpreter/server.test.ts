import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StdioServerHandle } from '../../helpers/mcp-stdio.js';
import { TOOL, callRun, errorOf, makeInterpreterFixture, type InterpreterFixture } from './fixture.js';

let fixture: InterpreterFixture;
let server: StdioServerHandle | undefined;

beforeEach(async () => {
  fixture = await makeInterpreterFixture();
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await fixture.root.remove();
});

interface Echo {
  argv: string[];
  cwd: string;
  env: string[];
}

async function echo(args: Record<string, unknown>): Promise<Echo> {
  const answer = await callRun(server!, args);
  expect(answer.isError, answer.text).toBe(false);
  return JSON.parse(answer.text) as Echo;
}

describe('the open-interpreter MCP server: listing', () => {
  it('offers one high-risk tool with a strict schema', async () => {
    await fixture.writeConfig({ timeout: 42 });
    server = await fixture.connect();
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([TOOL]);
    const tool = tools[0]!;
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        task: { type: 'string', minLength: 1, maxLength: 4000, pattern: '^[^-]', description: 'What to do, in plain language.' },
        cwd: { type: 'string', minLength: 1, description: expect.stringContaining('inside the working folder') },
      },
      required: ['task'],
      additionalProperties: false,
    });
    expect(tool.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    expect(tool._meta).toMatchObject({ 'desktop-assistant/risk': 'high', 'desktop-assistant/timeoutMs': 42_000 });
    expect(tool.description).toMatch(/Open Interpreter/);
    expect(tool.description).toMatch(/run code/);
    expect(tool.description).toMatch(/delete files/);
  });
});

describe('the open-interpreter MCP server: running a task', () => {
  it('returns what the command printed, without terminal escapes, and the task risk', async () => {
    server = await fixture.connect();
    const answer = await callRun(server, { task: 'How much free disk space is left?' });
    expect(answer.isError).toBe(false);
    expect(answer.text).toBe('▌ Open Interpreter (stand-in)\nTask: How much free disk space is left?\nThe task is done.\n');
    expect(answer.meta['desktop-assistant/taskRisk']).toEqual({ risk: 'write', reasons: [] });
    expect(answer.meta['desktop-assistant/truncated']).toBe(false);
  });

  it('reports a high-risk task with its reasons in the result metadata', async () => {
    server = await fixture.connect();
    const answer = await callRun(server, { task: 'Delete the old logs and upload the report to the server' });
    expect(answer.isError).toBe(false);
    expect(answer.meta['desktop-assistant/taskRisk']).toEqual({
      risk: 'high',
      reasons: ['deletes files or data', 'uploads or sends data over the network'],
    });
  });

  it('passes the task as one argument, never through a shell', async () => {
    server = await fixture.connect();
    const task = `argv: say "hi" and 'bye'; rm -rf ~ && echo $(whoami) \`id\` > /tmp/x | cat\nsecond line\tand a tab $HOME *`;
    const { argv } = await echo({ task });
    expect(argv).toEqual(['--auto_run', task]);
  });

  it('puts {task} inside an element, or last when no element has it', async () => {
    await fixture.writeConfig({ args: ['-y', '--message={task}!'] });
    server = await fixture.connect();
    expect((await echo({ task: 'argv: one $& two' })).argv).toEqual(['-y', '--message=argv: one $& two!']);
    await server.close();

    await fixture.writeConfig({ args: ['--auto_run', '--offline'] });
    server = await fixture.connect();
    expect((await echo({ task: 'argv: last' })).argv).toEqual(['--auto_run', '--offline', 'argv: last']);
  });

  it('gives the command an allow-listed environment plus [env]', async () => {
    await fixture.writeConfig({ env: { OI_PROFILE_HINT: 'from config' } });
    server = await fixture.connect({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      GITHUB_TOKEN: 'ghp-secret',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
      DESKTOP_ASSISTANT_TOKEN: 'da-secret',
      DISPLAY: ':0',
      LC_ALL: 'C.UTF-8',
    });
    const { env } = await echo({ task: 'argv: env' });
    for (const name of ['PATH', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'LC_ALL', 'OI_PROFILE_HINT', 'DISABLE_TELEMETRY', 'NO_COLOR']) {
      expect(env).toContain(name);
    }
    for (const name of ['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'SSH_AUTH_SOCK', 'DESKTOP_ASSISTANT_TOKEN', 'DISPLAY']) {
      expect(env).not.toContain(name);
    }
  });

  it('answers bad calls with error results and stays up', async () => {
    server = await fixture.connect();
    const codes = async (args: unknown, name?: string) => errorOf(await callRun(server!, args, name));
    expect(await codes({})).toMatchObject({ code: 'OPENINTERPRETER_INVALID_ARGUMENTS', message: 'task must be a string' });
    expect(await codes({ task: '   ' })).toMatchObject({ code: 'OPENINTERPRETER_INVALID_ARGUMENTS', message: 'task is empty' });
    expect(await codes({ task: 'x'.repeat(4001) })).toMatchObject({ code: 'OPENINTERPRETER_INVALID_ARGUMENTS' });
    expect(await codes({ task: '--api_base=http://evil.example' })).toMatchObject({ code: 'OPENINTERPRETER_INVALID_ARGUMENTS' });
    expect(await codes({ task: 'ok', extra: 1 })).toMatchObject({ code: 'OPENINTERPRETER_INVALID_ARGUMENTS', message: 'unknown argument extra' });
    expect(await codes({ task: 'ok', cwd: 7 })).toMatchObject({ code: 'OPENINTERPRETER_INVALID_ARGUMENTS' });
    expect(await codes([1])).toMatchObject({ code: 'OPENINTERPRETER_INVALID_ARGUMENTS', message: 'arguments must be a JSON object' });
    expect(await codes({ task: 'ok' }, 'shell.run')).toMatchObject({ code: 'OPENINTERPRETER_UNKNOWN_TOOL' });
    // A task of exactly 4000 characters is fine.
    expect((await callRun(server, { task: 'y'.repeat(4000) })).isError).toBe(false);
  });
});

describe('the open-interpreter MCP server: working folder', () => {
  it('runs in the configured folder, or in a folder inside it', async () => {
    await mkdir(join(fixture.work, 'projects/site'), { recursive: true });
    server = await fixture.connect();
    expect((await echo({ task: 'argv: where' })).cwd).toBe(fixture.work);
    expect((await echo({ task: 'argv: where', cwd: 'projects' })).cwd).toBe(join(fixture.work, 'projects'));
    expect((await echo({ task: 'argv: where', cwd: join(fixture.work, 'projects/site') })).cwd).toBe(join(fixture.work, 'projects/site'));
    expect((await echo({ task: 'argv: where', cwd: 'projects/../projects/site/.' })).cwd).toBe(join(fixture.work, 'projects/site'));
    expect((await echo({ task: 'argv: where', cwd: fixture.work })).cwd).toBe(fixture.work);
  });

  it('refuses a folder outside it, a symlink that leads out, and one that does not exist', async () => {
    await mkdir(join(fixture.root.path, 'elsewhere'));
    await symlink(join(fixture.root.path, 'elsewhere'), join(fixture.work, 'escape'));
    await fixture.root.write('work/file.txt', 'not a folder');
    server = await fixture.connect();
    for (const cwd of ['..', '/', fixture.root.path, 'escape', join(fixture.work, 'escape'), 'missing', 'file.txt', '~']) {
      const answer = await callRun(server, { task: 'delete everything here', cwd });
      expect(errorOf(answer), cwd).toMatchObject({ code: 'OPENINTERPRETER_CWD_REFUSED' });
      // The refusal carries the task's risk, in the text and the metadata.
      const body = JSON.parse(answer.text) as { taskRisk: unknown };
      expect(body.taskRisk).toEqual({ risk: 'high', reasons: ['deletes files or data'] });
      expect(answer.meta['desktop-assistant/taskRisk']).toEqual(body.taskRisk);
    }
  });

  it('says the adapter is unavailable when the configured folder is missing', async () => {
    await fixture.writeConfig({ cwd: join(fixture.root.path, 'gone') });
    server = await fixture.connect();
    const error = errorOf(await callRun(server, { task: 'list files' }));
    expect(error.code).toBe('OPENINTERPRETER_UNAVAILABLE');
    expect(error.message).toContain(join(fixture.root.path, 'gone'));
  });
});
