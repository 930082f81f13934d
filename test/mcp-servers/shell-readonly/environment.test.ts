import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandEnvironment } from '../../../mcp-servers/shell-readonly/environment.js';
import { PathGuard } from '../../../mcp-servers/shell-readonly/path-guard.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

let dir: TempDir;
let root: string;

beforeAll(async () => {
  dir = await makeTempDir('da-shell-env-');
  root = await realpath(dir.path);
  await mkdir(join(root, 'a', 'nested'), { recursive: true });
  await mkdir(join(root, 'b'));
});

afterAll(() => dir.remove());

describe('the command environment', () => {
  it('is built from nothing: a parent GIT_DIR, PAGER, LD_PRELOAD or PATH never reaches a command', async () => {
    const { guard } = await PathGuard.create([join(root, 'a'), join(root, 'a', 'nested'), join(root, 'b')]);
    const parent = { GIT_DIR: '/x', GIT_CONFIG_PARAMETERS: "'a.b'='c'", PAGER: 'less', LD_PRELOAD: '/x.so', PATH: '/evil:/usr/bin', TZ: 'Europe/Paris', EDITOR: 'vim' };
    expect(commandEnvironment(guard, parent)).toEqual({
      PATH: '/usr/bin:/bin',
      LC_ALL: 'C.UTF-8',
      HOME: join(root, 'a'),
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      EDITOR: '/bin/false',
      VISUAL: '/bin/false',
      GIT_EDITOR: '/bin/false',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_NO_LAZY_FETCH: '1',
      // The parent of each outermost allowed directory, once: a/nested lies inside a, a and b share theirs.
      GIT_CEILING_DIRECTORIES: root,
      TZ: 'Europe/Paris',
    });
  });

  it('leaves out allowed directories that do not exist', async () => {
    const { guard, missing } = await PathGuard.create([join(root, 'gone'), join(root, 'b')]);
    expect(missing).toEqual([join(root, 'gone')]);
    expect(guard.roots).toEqual([join(root, 'b')]);
    expect(guard.home).toBe(join(root, 'b'));
  });
});
