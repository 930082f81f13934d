import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

const run = promisify(execFile);

/** The marker every secret outside the allowed directory carries; no output may contain it. */
export const SECRET = 'TOP-SECRET';

/** A fixed identity and no user or system config, so commits are the same on every machine. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.invalid',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.invalid',
  GIT_AUTHOR_DATE: '2024-01-02T03:04:05Z',
  GIT_COMMITTER_DATE: '2024-01-02T03:04:05Z',
};

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: GIT_ENV });
  return stdout;
}

export async function makeRepo(dir: string, files: Record<string, string>, message = 'first'): Promise<void> {
  await mkdir(dir, { recursive: true });
  await git(dir, 'init', '-q', '-b', 'main');
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', message);
}

export interface Fixture {
  /** Holds everything; itself a git repository whose history mentions the secret. */
  base: string;
  /** The one allowed directory. */
  inside: string;
  /** Next to it, not allowed: secrets, a repository, the "evil" program. */
  outside: string;
  /** A program the attacks try to get run; it appends a line to `pwned` and copies stdin to stdout. */
  evil: string;
  pwned: string;
  dir: TempDir;
}

/**
 * BASE/            a git repo (its log holds the secret): git must not find it from inside
 *   out/           secret.txt, dir/secret2.txt, repo/ (a repo), evil.sh
 *   in/            the allowed directory: notes, symlinks that lead out, a FIFO,
 *                  repositories whose config names evil.sh in every way git knows
 */
export async function makeFixture(stubUrl = 'http://127.0.0.1:9/unused.git'): Promise<Fixture> {
  const dir = await makeTempDir('da-shell-');
  const base = dir.path;
  const inside = join(base, 'in');
  const outside = join(base, 'out');
  const pwned = join(outside, 'pwned');
  await makeRepo(base, { 'top.md': 'top\n' }, `${SECRET} parent commit`);
  const evil = await dir.write('out/evil.sh', `#!/bin/sh\necho "$0 $*" >> '${pwned}'\ncat\n`, 0o755);
  await dir.write('out/secret.txt', `${SECRET} outside file\n`);
  await dir.write('out/dir/secret2.txt', `${SECRET} outside dir\n`);
  await makeRepo(join(outside, 'repo'), { 'secret.md': `${SECRET}\n` }, `${SECRET} outside commit`);

  await dir.write('in/notes.txt', 'alpha\nbeta\ngamma\n');
  await dir.write('in/src/a.ts', 'export const a = 1;\n// TODO: more\n');
  await dir.write('in/fakebin/ls', `#!/bin/sh\necho fake-ls >> '${pwned}'\n`, 0o755);
  await symlink(join(outside, 'secret.txt'), join(inside, 'link-file'));
  await symlink('../out/dir', join(inside, 'link-dir'));
  await symlink(outside, join(inside, 'link-abs'));
  await symlink('../out/not-yet.txt', join(inside, 'dangling'));
  await run('mkfifo', [join(inside, 'fifo')]);

  await makeRepo(join(inside, 'repo'), { 'readme.md': 'hello\n' });
  await makeRepo(join(inside, 'fsmon'), { 'a.txt': 'a\n' });
  await git(join(inside, 'fsmon'), 'config', 'core.fsmonitor', evil);
  await makeRepo(join(inside, 'filter'), { 'a.txt': 'a\n', '.gitattributes': '*.txt filter=evil\n' });
  await git(join(inside, 'filter'), 'config', 'filter.evil.clean', evil);
  await makeRepo(join(inside, 'extdiff'), { 'a.txt': 'a\n' });
  await git(join(inside, 'extdiff'), 'config', 'diff.external', evil);
  await writeFile(join(inside, 'extdiff', 'a.txt'), 'a changed\n');
  await makeRepo(join(inside, 'textconv'), { 'a.txt': 'a\n', '.gitattributes': '*.txt diff=evil\n' });
  await writeFile(join(inside, 'textconv', 'a.txt'), 'a changed\n');
  await git(join(inside, 'textconv'), 'commit', '-q', '-am', 'second');
  await git(join(inside, 'textconv'), 'config', 'diff.evil.textconv', evil);
  await makeSignedRepo(join(inside, 'signed'), evil);
  await makeRepo(join(inside, 'worktree'), { 'a.txt': 'a\n' });
  await git(join(inside, 'worktree'), 'config', 'core.worktree', outside);

  await mkdir(join(inside, 'gitfile'));
  await writeFile(join(inside, 'gitfile', '.git'), `gitdir: ${join(outside, 'repo', '.git')}\n`);

  const outsideHead = (await git(join(outside, 'repo'), 'rev-parse', 'HEAD')).trim();
  await mkdir(join(inside, 'alternates'));
  await git(join(inside, 'alternates'), 'init', '-q', '-b', 'main');
  await writeFile(join(inside, 'alternates', '.git', 'objects', 'info', 'alternates'), `${join(outside, 'repo', '.git', 'objects')}\n`);
  await git(join(inside, 'alternates'), 'update-ref', 'refs/heads/main', outsideHead);

  await makeRepo(join(inside, 'promisor'), { 'a.txt': 'a\n' });
  for (const [key, value] of [['core.repositoryformatversion', '1'], ['extensions.partialClone', 'origin'], ['remote.origin.url', stubUrl], ['remote.origin.promisor', 'true']]) {
    await git(join(inside, 'promisor'), 'config', key!, value!);
  }
  return { base, inside, outside, evil, pwned, dir };
}

/** A commit with a (bogus) signature, so showing its signature runs gpg.program. */
async function makeSignedRepo(repo: string, evil: string): Promise<void> {
  await makeRepo(repo, { 'a.txt': 'a\n' });
  const tree = (await git(repo, 'rev-parse', 'HEAD^{tree}')).trim();
  const body = `tree ${tree}\nauthor A <a@example.invalid> 1700000000 +0000\ncommitter A <a@example.invalid> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n`;
  await writeFile(join(repo, '..', 'signed-commit.txt'), body);
  const sha = (await git(repo, 'hash-object', '-t', 'commit', '-w', join(repo, '..', 'signed-commit.txt'))).trim();
  await git(repo, 'update-ref', 'refs/heads/main', sha);
  await git(repo, 'config', 'gpg.program', evil);
  await git(repo, 'config', 'log.showSignature', 'true');
}

/** Every entry under `root` with its type, size, mtime and (files) content hash: any write shows. */
export async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const info = await lstat(path);
      let digest = '';
      if (info.isFile()) digest = createHash('sha1').update(await readFile(path)).digest('hex');
      out.set(path, `${info.mode}:${info.size}:${info.mtimeMs}:${digest}`);
      if (info.isDirectory()) await walk(path);
    }
  };
  await walk(root);
  return out;
}
