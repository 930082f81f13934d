import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { git, makeRepo, snapshot } from './fixture.js';
import { startInProcess, type InProcessServer } from './harness.js';

let dir: TempDir;
let root: string;
let server: InProcessServer;
let before: Map<string, string>;

beforeAll(async () => {
  dir = await makeTempDir('da-shell-ok-');
  root = await realpath(dir.path);
  await dir.write('notes.txt', 'alpha\nbeta\ngamma\nbeta\n');
  await dir.write('src/a.ts', 'export const a = 1;\n// TODO: more\n');
  await dir.write('src/b.ts', 'export const b = 2;\n');
  await dir.write('long.txt', 'x'.repeat(1000));
  await mkdir(join(root, 'empty'));
  const proj = join(root, 'proj');
  await makeRepo(proj, { 'readme.md': 'hello\n' }, 'first');
  await writeFile(join(proj, 'readme.md'), 'hello again\n');
  await git(proj, 'commit', '-q', '-am', 'second');
  await writeFile(join(proj, 'readme.md'), 'hello changed\n');
  await writeFile(join(proj, 'new.txt'), 'untracked\n');
  server = await startInProcess({ allowedDirs: [root], timeoutMs: 5000, maxOutputChars: 2000 });
  before = await snapshot(root);
});

afterAll(async () => {
  await server?.close();
  await dir?.remove();
});

async function ok(argv: string[], cwd?: string): Promise<string> {
  const outcome = await server.call(cwd === undefined ? { argv } : { argv, cwd });
  expect(outcome.isError, outcome.text).toBe(false);
  return outcome.text;
}

describe('allowed commands', () => {
  it('lists the tool with its schema, read risk and annotations', async () => {
    const { tools } = await server.client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'shell.readonly',
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { 'desktop-assistant/risk': 'read', 'desktop-assistant/timeoutMs': 5000 },
      inputSchema: { type: 'object', required: ['argv'], additionalProperties: false },
    });
    expect(tools[0]!.description).toContain(root);
    expect(tools[0]!.description).toContain('find -exec');
  });

  it('ls, cat, head, tail, wc', async () => {
    expect((await ok(['ls'])).split('\n')).toEqual(expect.arrayContaining(['empty', 'notes.txt', 'proj', 'src']));
    expect(await ok(['ls', '-1', 'src'])).toBe('a.ts\nb.ts');
    expect(await ok(['cat', 'notes.txt'])).toBe('alpha\nbeta\ngamma\nbeta');
    expect(await ok(['head', '-n', '2', 'notes.txt'])).toBe('alpha\nbeta');
    expect(await ok(['head', '-2', 'notes.txt'])).toBe('alpha\nbeta');
    expect(await ok(['tail', '-n1', 'notes.txt'])).toBe('beta');
    expect(await ok(['wc', '-l', 'notes.txt'])).toBe('4 notes.txt');
    expect(await ok(['cat', `${root}/src/b.ts`])).toBe('export const b = 2;');
  });

  it('grep, egrep, fgrep, with no match as an answer', async () => {
    expect(await ok(['grep', '-rn', 'TODO', 'src'])).toBe('src/a.ts:2:// TODO: more');
    expect(await ok(['grep', '-c', 'beta', 'notes.txt'])).toBe('2');
    expect(await ok(['egrep', 'al|ga', 'notes.txt'])).toBe('alpha\ngamma');
    expect(await ok(['fgrep', 'a|b', 'notes.txt'])).toBe('(no matches)');
    expect(await ok(['grep', '-e', '/etc/passwd', 'notes.txt'])).toBe('(no matches)');
  });

  it('find, stat, du, df, file', async () => {
    expect((await ok(['find', '.', '-name', '*.ts'])).split('\n').filter(Boolean).sort()).toEqual(['./src/a.ts', './src/b.ts']);
    expect(await ok(['find', 'src', '-maxdepth', '1', '-type', 'f', '-newer', 'notes.txt', '-printf', '%f\\n'])).toMatch(/^(a\.ts|b\.ts)(\n(a\.ts|b\.ts))?$|^\(no output\)$/);
    expect(await ok(['stat', '-c', '%s %F', 'notes.txt'])).toBe('22 regular file');
    expect(await ok(['du', '-s', 'src'])).toMatch(/^\d+\tsrc$/);
    expect(await ok(['df', '-P', '.'])).toMatch(/^Filesystem/);
    expect(await ok(['file', 'notes.txt'])).toBe('notes.txt: ASCII text');
  });

  it('date, uname, pwd, sort, uniq, cut', async () => {
    expect(await ok(['date', '+%Y'])).toMatch(/^\d{4}$/);
    expect(await ok(['date', '-u', '-d', '@0', '+%F'])).toBe('1970-01-01');
    expect(await ok(['uname', '-s'])).toBe('Linux');
    expect(await ok(['uname', '-a'])).toMatch(/^Linux /);
    expect(await ok(['pwd'])).toBe(root);
    expect(await ok(['pwd'], 'src')).toBe(`${root}/src`);
    expect(await ok(['sort', '-r', '-u', 'notes.txt'])).toBe('gamma\nbeta\nalpha');
    expect(await ok(['uniq', '-c', 'src/a.ts'])).toContain('1 export const a = 1;');
    expect(await ok(['cut', '-c1-2', 'notes.txt'])).toBe('al\nbe\nga\nbe');
  });

  it('cwd relative to the allowed directory, and absolute', async () => {
    expect(await ok(['ls'], 'src')).toBe('a.ts\nb.ts');
    expect(await ok(['ls'], `${root}/src`)).toBe('a.ts\nb.ts');
    expect(await ok(['ls'], 'empty')).toBe('(no output)');
  });

  it('git status, log, diff, show, branch in a repository inside', async () => {
    expect(await ok(['git', 'status', '--short'], 'proj')).toBe(' M readme.md\n?? new.txt');
    expect(await ok(['git', 'status'], 'proj')).toContain('On branch main');
    expect(await ok(['git', 'log', '--format=%an|%s'], 'proj')).toBe('Test Author|second\nTest Author|first');
    expect(await ok(['git', 'log', '--oneline', '-1'], 'proj')).toMatch(/^[0-9a-f]{7,} second$/);
    expect(await ok(['git', 'diff'], 'proj')).toContain('-hello again\n+hello changed');
    expect(await ok(['git', 'diff', 'HEAD~1', '--', 'readme.md'], 'proj')).toContain('-hello\n+hello changed');
    expect(await ok(['git', 'show', '--stat', '--format=%s', 'HEAD'], 'proj')).toMatch(/^second\n\n readme\.md \| 2 \+-/);
    expect(await ok(['git', 'branch'], 'proj')).toBe('* main');
    expect(await ok(['git', 'branch', '--list', 'ma*'], 'proj')).toBe('* main');
    expect(await ok(['git', '-C', 'proj', 'log', '--format=%s', '-1'])).toBe('second');
  });

  it('cuts long output with a visible mark', async () => {
    const small = await startInProcess({ allowedDirs: [root], timeoutMs: 5000, maxOutputChars: 100 });
    try {
      const text = (await small.call({ argv: ['cat', 'long.txt'] })).text;
      expect(text).toBe(`${'x'.repeat(100)}\n[output truncated: the first 100 characters of 1000 bytes are shown]`);
    } finally {
      await small.close();
    }
  });

  it('a non-zero exit is SHELL_FAILED with the exit code and stderr', async () => {
    const outcome = await server.call({ argv: ['cat', 'missing.txt'] });
    expect(outcome).toMatchObject({ isError: true, code: 'SHELL_FAILED' });
    expect(JSON.parse(outcome.text)).toEqual({
      error: {
        code: 'SHELL_FAILED',
        message: 'cat exited with code 1: /usr/bin/cat: missing.txt: No such file or directory',
        exitCode: 1,
        stderr: '/usr/bin/cat: missing.txt: No such file or directory',
      },
    });
  });

  it('an unknown tool name and non-object arguments are error results', async () => {
    expect(await server.call('ls')).toMatchObject({ isError: true, code: 'SHELL_ARGUMENTS_INVALID' });
    const other = await server.client.callTool({ name: 'shell_readonly', arguments: { argv: ['ls'] } });
    expect(other.isError).toBe(true);
  });

  it('changed nothing in the directory', async () => {
    expect(await snapshot(root)).toEqual(before);
  });
});
