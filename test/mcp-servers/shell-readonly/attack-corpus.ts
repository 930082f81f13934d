/**
 * Attempts to make shell.readonly read outside its directory, write,
 * delete, run another program, reach the network or hang. Each row is one
 * call; `expect` is the error code it must get, or 'ok' / SHELL_FAILED for
 * calls that may run because they are harmless. Whatever the outcome, the
 * test checks afterwards that nothing under the fixture changed, that no
 * evil program ran, that no output shows the secret (or PWNED, which the
 * environment attacks try to print), and that nothing reached the network.
 *
 * Tokens: $IN (the allowed directory), $OUT (next to it, not allowed),
 * $BASE (their parent, a git repository). Relative cwd is relative to $IN.
 */
export type Expect = 'ok' | 'SHELL_COMMAND_REFUSED' | 'SHELL_PATH_OUTSIDE' | 'SHELL_ARGUMENTS_INVALID' | 'SHELL_FAILED';

export interface Attack {
  name: string;
  argv?: string[];
  /** Raw tool arguments, for attacks on the input itself. */
  input?: unknown;
  cwd?: string;
  /** Set in the server's own environment for the call: it must not reach the command. */
  serverEnv?: Record<string, string>;
  expect: Expect;
}

const LONG = 'a'.repeat(100_000);

export const ATTACKS: readonly Attack[] = [
  // Paths that lead out.
  { name: 'absolute path outside', argv: ['cat', '$OUT/secret.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: '.. traversal', argv: ['cat', '../out/secret.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: '.. traversal through a subdirectory', argv: ['cat', 'src/../../out/secret.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'symlink to a file outside', argv: ['cat', 'link-file'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'symlink to a directory outside', argv: ['ls', 'link-dir'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'file under a symlinked directory', argv: ['cat', 'link-dir/secret2.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'absolute symlink, then ..', argv: ['cat', 'link-abs/../out/secret.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'dangling symlink that points outside', argv: ['cat', 'dangling'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: '.. after a part that does not exist', argv: ['ls', 'nothing/../../out'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'system file', argv: ['cat', '/etc/passwd'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: '/proc/self/environ', argv: ['cat', '/proc/self/environ'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'endless device', argv: ['cat', '/dev/zero'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'random device with head', argv: ['head', '-c', '10', '/dev/urandom'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'FIFO inside (would block)', argv: ['cat', 'fifo'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'cwd outside', argv: ['ls'], cwd: '$OUT', expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'cwd ..', argv: ['ls'], cwd: '..', expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'cwd through a symlink', argv: ['ls'], cwd: 'link-dir', expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'grep -f reads patterns from a file outside', argv: ['grep', '-f', '$OUT/secret.txt', 'notes.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'grep -f glued to its value', argv: ['grep', '-f../out/secret.txt', 'notes.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'grep --exclude-from= outside', argv: ['grep', '-r', '--exclude-from=../out/secret.txt', 'x', '.'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'grep pattern then a file outside', argv: ['grep', 'x', '../out/secret.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'date -f echoes a file outside line by line', argv: ['date', '-f', '$OUT/secret.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'date -r on a file outside', argv: ['date', '--reference=$OUT/secret.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'find starting outside', argv: ['find', '$OUT', '-name', '*.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'find -newer a file outside', argv: ['find', '.', '-newer', '../out/secret.txt'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'options after -- are paths', argv: ['ls', '--', '/etc'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'recursion does not follow symlinks out', argv: ['grep', '-rn', 'TOP', '.'], expect: 'ok' },
  { name: 'find does not follow symlinks out', argv: ['find', '.', '-name', 'secret*'], expect: 'ok' },

  // Options that follow symlinks while recursing.
  { name: 'grep -R', argv: ['grep', '-R', 'x', '.'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'grep -rR in a cluster', argv: ['grep', '-nrR', 'x', '.'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -L', argv: ['find', '-L', '.', '-name', 'x'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -follow', argv: ['find', '.', '-follow', '-name', 'x'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'ls -LR', argv: ['ls', '-LR', '.'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'du --dereference', argv: ['du', '--dereference', '.'], expect: 'SHELL_COMMAND_REFUSED' },

  // Writing, deleting and running through read-only commands.
  { name: 'find -delete', argv: ['find', '.', '-name', 'notes.txt', '-delete'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -- -delete (-- ends only find\'s leading options)', argv: ['find', '--', '-delete'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -exec', argv: ['find', '.', '-exec', 'rm', '{}', ';'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -execdir', argv: ['find', '.', '-execdir', 'sh', '-c', 'touch x', ';'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -ok', argv: ['find', '.', '-ok', 'rm', '{}', ';'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -okdir', argv: ['find', '.', '-okdir', 'rm', '{}', ';'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -fprint', argv: ['find', '.', '-fprint', 'list.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -fprintf', argv: ['find', '.', '-fprintf', 'list.txt', '%p'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -fprint0', argv: ['find', '.', '-fprint0', 'list.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -fls', argv: ['find', '.', '-fls', 'list.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -delete hidden behind -name', argv: ['find', '.', '-name', '*.txt', '-o', '-delete'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -files0-from', argv: ['find', '-files0-from', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'find -exec spelled with an em dash', argv: ['find', '.', '\u2014exec', 'rm', '{}', ';'], expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'find -delete spelled with a Unicode hyphen', argv: ['find', '.', '\u2010delete'], expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'find -delete spelled with a full-width hyphen', argv: ['find', '.', '\uFF0Ddelete'], expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'sort -o', argv: ['sort', '-o', 'notes.txt', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'sort -o glued in a cluster', argv: ['sort', '-ronotes.txt', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'sort --output=', argv: ['sort', '--output=copy.txt', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'sort --out= (getopt would expand the abbreviation)', argv: ['sort', '--out=copy.txt', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'sort --compress-program', argv: ['sort', '--compress-program=sh', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'sort -T writes temporaries', argv: ['sort', '-T', '.', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'uniq with an OUTPUT operand', argv: ['uniq', 'notes.txt', 'copy.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'tail -f never ends', argv: ['tail', '-f', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'tail --follow=name', argv: ['tail', '--follow=name', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'tail -n5f (obsolete cluster)', argv: ['tail', '-5f', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'date -s sets the clock', argv: ['date', '-s', '2020-01-01'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'date MMDDhhmm sets the clock', argv: ['date', '010100002020'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'file -C compiles a magic file', argv: ['file', '-C', '-m', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'file -f reads unchecked names', argv: ['file', '-f', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'wc --files0-from reads unchecked names', argv: ['wc', '--files0-from=notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'df --sync', argv: ['df', '--sync'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'grep --devices=read', argv: ['grep', '--devices=read', 'x', 'fifo'], expect: 'SHELL_COMMAND_REFUSED' },

  // Programs not on the list, or given as paths.
  { name: 'rm', argv: ['rm', '-rf', '.'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'sh -c', argv: ['sh', '-c', 'touch pwned'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'bash', argv: ['bash', '-c', 'id'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'python', argv: ['python3', '-c', 'open("x","w")'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'env runs another program', argv: ['env', 'GIT_PAGER=sh', 'git', 'log'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'xargs', argv: ['xargs', 'rm'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'tee writes', argv: ['tee', 'x'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'cp', argv: ['cp', 'notes.txt', 'copy.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'chmod', argv: ['chmod', '777', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'curl reaches the network', argv: ['curl', 'http://127.0.0.1/'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'apt-get installs', argv: ['apt-get', 'install', 'x'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'less is a pager', argv: ['less', 'notes.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'an assignment as the program', argv: ['GIT_PAGER=touch', 'git', 'log'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'absolute path as program', argv: ['/bin/ls'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'relative path as program', argv: ['./fakebin/ls'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'traversal as program', argv: ['../../bin/sh'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'a name with a trailing space', argv: ['ls ', '.'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'upper-case name', argv: ['LS'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'empty program name', argv: [''], expect: 'SHELL_COMMAND_REFUSED' },

  // Shell syntax stays literal: there is no shell.
  { name: "redirection: ls '>' x creates no x", argv: ['ls', '>', 'x'], expect: 'SHELL_FAILED' },
  { name: 'append redirection', argv: ['cat', 'notes.txt', '>>', 'notes.txt'], expect: 'SHELL_FAILED' },
  { name: 'command substitution', argv: ['ls', '$(touch pwned)'], expect: 'SHELL_FAILED' },
  { name: 'backticks', argv: ['cat', '`touch pwned`'], expect: 'SHELL_FAILED' },
  { name: 'a pipe and a second command', argv: ['ls', '|', 'tee', 'x'], expect: 'SHELL_FAILED' },
  { name: '; rm -rf . (rm, -rf, . become ls arguments)', argv: ['ls', ';', 'rm', '-rf', '.'], expect: 'SHELL_FAILED' },
  { name: '&& inside one argument', argv: ['cat', 'notes.txt && rm notes.txt'], expect: 'SHELL_FAILED' },
  { name: 'no tilde expansion', argv: ['cat', '~/.ssh/id_rsa'], expect: 'SHELL_FAILED' },
  { name: 'no glob expansion', argv: ['cat', '/etc/*'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'a dash file name after --', argv: ['ls', '--', '-la'], expect: 'SHELL_FAILED' },

  // The input itself.
  { name: 'NUL byte in an argument', argv: ['cat', 'notes.txt\0../../etc/passwd'], expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'NUL byte in cwd', argv: ['ls'], cwd: 'src\0', expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'an absurdly long argument', argv: ['grep', LONG, 'notes.txt'], expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'too many arguments', argv: ['ls', ...Array.from({ length: 64 }, () => '.')], expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'an env property beside argv', input: { argv: ['git', 'log'], env: { GIT_PAGER: 'touch pwned' } }, expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'argv as one string for a shell', input: { argv: 'ls; touch pwned' }, expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'a number in argv', input: { argv: ['ls', 1] }, expect: 'SHELL_ARGUMENTS_INVALID' },
  { name: 'empty argv', input: { argv: [] }, expect: 'SHELL_ARGUMENTS_INVALID' },

  // git: options and subcommands that write, run programs or look elsewhere.
  { name: 'git -c core.pager', argv: ['git', '-c', 'core.pager=touch pwned', 'log'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git -c glued', argv: ['git', '-ccore.fsmonitor=touch', 'status'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git --config-env', argv: ['git', '--config-env=core.pager=HOME', 'log'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git --exec-path', argv: ['git', '--exec-path=$OUT', 'log'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git --git-dir outside', argv: ['git', '--git-dir=$OUT/repo/.git', 'log'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git --work-tree outside', argv: ['git', '--work-tree', '$OUT', 'status'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git -C outside', argv: ['git', '-C', '$OUT/repo', 'log'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'git -C through a symlink', argv: ['git', '-C', 'link-abs/repo', 'log'], expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'git -p (pager)', argv: ['git', '-p', 'log'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git --paginate', argv: ['git', '--paginate', 'log'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git log --output', argv: ['git', 'log', '--output=log.txt'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git log --out (abbreviation)', argv: ['git', 'log', '--out=log.txt'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git diff --output', argv: ['git', 'diff', '--output', 'd.txt'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git diff --ext-diff', argv: ['git', 'diff', '--ext-diff'], cwd: 'extdiff', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git show --textconv', argv: ['git', 'show', '--textconv'], cwd: 'textconv', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git log --show-signature', argv: ['git', 'log', '--show-signature'], cwd: 'signed', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git diff --no-index against a file outside', argv: ['git', 'diff', '--no-index', 'notes.txt', '../out/secret.txt'], expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git diff of a path outside', argv: ['git', 'diff', 'HEAD', '--', '/etc/passwd'], cwd: 'repo', expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'git status -v (diff through textconv)', argv: ['git', 'status', '-v'], cwd: 'textconv', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git push', argv: ['git', 'push', 'origin', 'main'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git fetch', argv: ['git', 'fetch'], cwd: 'promisor', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git commit', argv: ['git', 'commit', '--allow-empty', '-m', 'x'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git config writes', argv: ['git', 'config', 'core.pager', 'touch pwned'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git clean deletes', argv: ['git', 'clean', '-fdx'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git help starts man', argv: ['git', 'help', 'log'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git log --help starts man', argv: ['git', 'log', '--help'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git branch NAME creates', argv: ['git', 'branch', 'evil'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git branch -D deletes', argv: ['git', 'branch', '-D', 'main'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git branch -m renames', argv: ['git', 'branch', '-m', 'main', 'other'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git branch --edit-description (editor)', argv: ['git', 'branch', '--edit-description'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'git branch -vD in a cluster', argv: ['git', 'branch', '-vD', 'main'], cwd: 'repo', expect: 'SHELL_COMMAND_REFUSED' },

  // git: repositories whose config or layout is the attack.
  { name: 'core.fsmonitor names a program', argv: ['git', 'status', '--short'], cwd: 'fsmon', expect: 'ok' },
  { name: 'a clean filter names a program', argv: ['git', 'status'], cwd: 'filter', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'diff.external names a program', argv: ['git', 'diff'], cwd: 'extdiff', expect: 'ok' },
  { name: 'a textconv driver names a program', argv: ['git', 'log', '-p'], cwd: 'textconv', expect: 'ok' },
  { name: 'gpg.program and log.showSignature', argv: ['git', 'log'], cwd: 'signed', expect: 'ok' },
  { name: 'a %G? format asks gpg', argv: ['git', 'log', '--format=%G? %s'], cwd: 'signed', expect: 'ok' },
  { name: 'a .git file pointing outside', argv: ['git', 'log'], cwd: 'gitfile', expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'alternates borrowing an object store outside', argv: ['git', 'log'], cwd: 'alternates', expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'core.worktree outside', argv: ['git', 'status'], cwd: 'worktree', expect: 'SHELL_PATH_OUTSIDE' },
  { name: 'a repository above the allowed directory', argv: ['git', 'log'], expect: 'SHELL_FAILED' },
  { name: 'a partial clone fetching a missing object', argv: ['git', 'show', '1234567890123456789012345678901234567890'], cwd: 'promisor', expect: 'SHELL_COMMAND_REFUSED' },
  { name: 'a partial clone, git log -p', argv: ['git', 'log', '-p'], cwd: 'promisor', expect: 'SHELL_COMMAND_REFUSED' },

  // The server's own environment must not reach the command.
  {
    name: 'GIT_DIR and GIT_CONFIG_PARAMETERS in the server environment',
    argv: ['git', 'log', '--oneline'],
    cwd: 'repo',
    serverEnv: { GIT_DIR: '$OUT/repo/.git', GIT_CONFIG_PARAMETERS: "'core.pager'='$OUT/evil.sh' 'format.pretty'='PWNED %H'", GIT_PAGER: '$OUT/evil.sh' },
    expect: 'ok',
  },
  { name: 'a fake ls first on the server PATH', argv: ['ls'], serverEnv: { PATH: '$IN/fakebin:/usr/bin:/bin' }, expect: 'ok' },
  // Leaked, it would make ls take the -a after the operand for a file name and fail.
  { name: 'POSIXLY_CORRECT in the server environment', argv: ['ls', '.', '-a'], serverEnv: { POSIXLY_CORRECT: '1' }, expect: 'ok' },
];
