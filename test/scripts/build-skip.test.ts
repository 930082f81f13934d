/**
 * `npm start` and `npm test` run scripts/build.sh every time; it builds only
 * when an input changed since the last build that succeeded. Here the real
 * build.sh and build-stamp.sh run in a small copy of the checkout's layout
 * with a stand-in `npx` on PATH (it writes the outputs tsc and esbuild would,
 * and says it ran), so the test sees each decision without compiling.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const FAKE_NPX = `#!/usr/bin/env bash
set -eu
echo "$*" >> "$CALLS_LOG"
case " $* " in
  *" tsc "*)
    [ "\${FAIL_TSC:-0}" = 1 ] && { echo "error TS2345: planted" >&2; exit 2; }
    mkdir -p dist/src/host/cli dist/mcp-servers/tools
    echo built > dist/src/host/cli/main.js
    echo built > dist/mcp-servers/tools/main.js ;;
  *" esbuild "*)
    for arg in "$@"; do case $arg in --outfile=*) mkdir -p "$(dirname "\${arg#--outfile=}")"; echo bundle > "\${arg#--outfile=}" ;; esac; done ;;
esac
`;

interface BuildRun {
  code: number;
  /** The npx commands it ran: empty when it skipped the build. */
  ran: string[];
  stderr: string;
}

let root: TempDir;
let calls: string;

beforeEach(async () => {
  root = await makeTempDir('da-build-skip-');
  calls = join(root.path, 'calls.log');
  await mkdir(join(root.path, 'scripts'));
  for (const script of ['build.sh', 'build-stamp.sh']) await copyFile(join(REPO_ROOT, 'scripts', script), join(root.path, 'scripts', script));
  await root.write('bin/npx', FAKE_NPX, 0o755);
  await root.write('tsconfig.json', '{}');
  await root.write('tsconfig.build.json', await readFile(join(REPO_ROOT, 'tsconfig.build.json'), 'utf8'));
  await root.write('package.json', '{}');
  await root.write('package-lock.json', '{}');
  await root.write('src/host/cli/main.ts', 'export const answer = 1;\n');
  await root.write('mcp-servers/tools/main.ts', 'export {};\n');
  await root.write('test/support/helper.ts', 'export {};\n');
  await root.write('test/unit/a.test.ts', 'export {};\n');
  for (const tool of ['calendar', 'weather', 'search']) await root.write(`examples/tool-sources/${tool}/main.ts`, 'export {};\n');
});
afterEach(() => root.remove());

async function build(env: Record<string, string> = {}): Promise<BuildRun> {
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      'bash',
      [join(root.path, 'scripts/build.sh')],
      { env: { ...process.env, PATH: `${join(root.path, 'bin')}:${process.env.PATH ?? ''}`, CALLS_LOG: calls, FORCE: '0', ...env } },
      (error, _stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr }),
    );
  });
  // No calls log: the build ran no tool at all.
  const log = await readFile(calls, 'utf8').catch(() => '');
  await rm(calls, { force: true });
  return { code, ran: log.split('\n').filter(Boolean), stderr };
}

/** An edit a second later than anything before (file systems with coarse times would hide a same-second one). */
async function edit(relative: string, text: string): Promise<void> {
  const file = await root.write(relative, text);
  const later = new Date(Date.now() + 60_000);
  await utimes(file, later, later);
}

const compiled = (run: BuildRun) => run.ran.filter((c) => c.includes(' tsc '));

describe('scripts/build.sh builds only what changed since the last build', () => {
  it('builds the first time (tsc and the three bundles), then skips while nothing changed', async () => {
    const first = await build();
    expect(first.code).toBe(0);
    expect(compiled(first)).toEqual(['--no-install tsc -p tsconfig.build.json']);
    expect(first.ran.filter((c) => c.includes(' esbuild '))).toHaveLength(3);
    expect(await build()).toMatchObject({ code: 0, ran: [] });
  });

  it('builds again after a source file changed (to the same size: its time tells)', async () => {
    await build();
    await edit('src/host/cli/main.ts', 'export const answer = 2;\n');
    expect(compiled(await build())).toHaveLength(1);
    expect((await build()).ran).toEqual([]);
  });

  it('builds again after a file was added to any folder tsconfig.build.json compiles, or to the example tools', async () => {
    const folders: string[] = JSON.parse(await readFile(join(REPO_ROOT, 'tsconfig.build.json'), 'utf8')).include;
    await build();
    for (const folder of [...folders, 'examples/tool-sources/shared']) {
      await root.write(`${folder}/added-${folder.replaceAll('/', '-')}.ts`, 'export {};\n');
      expect(compiled(await build()), `a file added under ${folder}`).toHaveLength(1);
    }
  });

  it('builds again after a file was removed, or the lock file or a tsconfig changed', async () => {
    await build();
    await rm(join(root.path, 'mcp-servers/tools/main.ts'));
    expect(compiled(await build())).toHaveLength(1);
    for (const file of ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
      await edit(file, '{ "changed": true }');
      expect(compiled(await build()), `${file} changed`).toHaveLength(1);
    }
  });

  it('builds again when an output is gone (dist/ deleted, a bundle deleted)', async () => {
    await build();
    await rm(join(root.path, 'examples/tools/weather.mjs'));
    expect(compiled(await build())).toHaveLength(1);
    await rm(join(root.path, 'dist'), { recursive: true });
    expect(compiled(await build())).toHaveLength(1);
  });

  it('a change outside the inputs (a test file, the README) builds nothing', async () => {
    await build();
    await edit('test/unit/a.test.ts', 'export const other = 2;\n');
    await edit('README.md', 'words');
    expect((await build()).ran).toEqual([]);
  });

  it('a failed compile records nothing: the next run compiles again', async () => {
    await build();
    await edit('src/host/cli/main.ts', 'export const broken: number = "x";\n');
    const failed = await build({ FAIL_TSC: '1' });
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('planted');
    expect(compiled(await build())).toHaveLength(1);
  });

  it('FORCE=1 builds although nothing changed', async () => {
    await build();
    expect(compiled(await build({ FORCE: '1' }))).toHaveLength(1);
  });
});
