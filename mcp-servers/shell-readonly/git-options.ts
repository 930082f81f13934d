import type { OptionTable } from './options.js';

const RUNS_DIFF = 'runs the external diff program named in the configuration';
const RUNS_TEXTCONV = 'runs the textconv programs named in the configuration';
const WRITES = 'writes its output to a file';
const SUBMODULES = 'would look into submodules, whose repositories are not checked; they are always ignored';

const DIFF_REFUSED: Readonly<Record<string, string>> = {
  '--output': WRITES,
  '--ext-diff': RUNS_DIFF,
  '--textconv': RUNS_TEXTCONV,
  '--ignore-submodules': SUBMODULES,
  '--submodule': SUBMODULES,
};

/** Diff output options shared by log, show and diff (git's diff_opt_parse). */
const DIFF_LONG = [
  'stat?', 'shortstat', 'numstat', 'dirstat?', 'name-only', 'name-status', 'summary', 'compact-summary', 'patch', 'no-patch',
  'raw', 'ignore-all-space', 'ignore-space-change', 'ignore-space-at-eol', 'ignore-blank-lines', 'ignore-cr-at-eol',
  'word-diff?', 'word-diff-regex=', 'color?', 'no-color', 'color-moved?', 'no-renames', 'find-renames?', 'find-copies?',
  'minimal', 'histogram', 'patience', 'diff-filter=', 'unified?', 'full-index', 'binary', 'abbrev?', 'no-prefix',
  'src-prefix=', 'dst-prefix=', 'text', 'function-context', 'inter-hunk-context=', 'no-ext-diff', 'no-textconv',
];

/** git log and git show: revision walking, formatting and diff options. */
export const HISTORY_OPTIONS: OptionTable = {
  short: 'n:pusS:G:wbiEFPRmtU?M?',
  long: [
    ...DIFF_LONG,
    'oneline', 'graph', 'decorate?', 'no-decorate', 'decorate-refs=', 'decorate-refs-exclude=', 'all', 'branches?', 'tags?',
    'remotes?', 'reverse', 'no-merges', 'merges', 'first-parent', 'follow', 'abbrev-commit', 'no-abbrev-commit',
    'full-history', 'simplify-by-decoration', 'date-order', 'topo-order', 'author-date-order', 'left-right', 'cherry-pick',
    'cherry-mark', 'boundary', 'relative-date', 'parents', 'children', 'full-diff', 'regexp-ignore-case', 'extended-regexp',
    'fixed-strings', 'perl-regexp', 'all-match', 'invert-grep', 'max-count=', 'skip=', 'since=', 'after=', 'until=',
    'before=', 'author=', 'committer=', 'grep=', 'format?', 'pretty?', 'date=', 'mailmap', 'no-mailmap', 'use-mailmap',
    'cc', 'walk-reflogs', 'source', 'notes?', 'no-notes', 'expand-tabs?', 'no-expand-tabs', 'pickaxe-all', 'pickaxe-regex',
    'max-parents=', 'min-parents=', 'no-min-parents', 'no-max-parents',
  ],
  digits: 'alone',
  refused: { ...DIFF_REFUSED, '--show-signature': 'runs gpg to check signatures' },
};

export const DIFF_OPTIONS: OptionTable = {
  short: 'pusU?wbRzM?a',
  long: [...DIFF_LONG, 'cached', 'staged', 'merge-base', 'check', 'irreversible-delete'],
  refused: { ...DIFF_REFUSED, '--no-index': 'compares files outside any repository; run git diff inside one' },
};

export const STATUS_OPTIONS: OptionTable = {
  short: 'sbzu?',
  long: [
    'short', 'branch', 'porcelain?', 'long', 'untracked-files?', 'ignored?', 'null', 'ahead-behind', 'no-ahead-behind',
    'renames', 'no-renames', 'find-renames?', 'show-stash', 'no-column',
  ],
  refused: { '--ignore-submodules': SUBMODULES, '-v': 'shows a diff through textconv programs', '--verbose': 'shows a diff through textconv programs' },
};

const DELETES = 'would delete a branch';
const RENAMES = 'would rename a branch';
const COPIES = 'would copy a branch';
const UPSTREAM = "would change the branch's upstream in the repository configuration";

export const BRANCH_OPTIONS: OptionTable = {
  short: 'arvli',
  long: [
    'all', 'remotes', 'verbose', 'list', 'show-current', 'no-color', 'color?', 'no-column', 'sort=', 'format=', 'contains?',
    'no-contains?', 'merged?', 'no-merged?', 'points-at=', 'ignore-case', 'abbrev?', 'no-abbrev',
  ],
  refused: {
    '-d': DELETES, '-D': DELETES, '--delete': DELETES,
    '-m': RENAMES, '-M': RENAMES, '--move': RENAMES,
    '-c': COPIES, '-C': COPIES, '--copy': COPIES,
    '-f': 'forces a branch change', '--force': 'forces a branch change',
    '-u': UPSTREAM, '--set-upstream-to': UPSTREAM, '--unset-upstream': UPSTREAM,
    '-t': 'would create a branch', '--track': 'would create a branch', '--no-track': 'would create a branch',
    '--edit-description': 'opens an editor and writes the description',
    '--create-reflog': 'writes a reflog',
  },
};

/**
 * Configuration given on git's own command line, which wins over the
 * repository's: no fsmonitor, pager, hooks or signature programs (each
 * would run a program the repository names), and no transport at all, so
 * a partial clone cannot fetch missing objects over the network.
 */
export const GIT_SAFETY_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.hooksPath=/dev/null',
  'log.showSignature=false',
  'gpg.program=/bin/false',
  'gpg.openpgp.program=/bin/false',
  'gpg.x509.program=/bin/false',
  'gpg.ssh.program=/bin/false',
  'protocol.allow=never',
  'status.submoduleSummary=false',
].flatMap((pair) => ['-c', pair]);

/** Options put after each subcommand, before the caller's. */
export const INJECTED: Readonly<Record<string, readonly string[]>> = {
  status: ['--ignore-submodules=all'],
  diff: ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all'],
  log: ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all'],
  show: ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all'],
  branch: [],
};
