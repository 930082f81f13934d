import type { OptionTable } from './options.js';

/**
 * A command that takes options and operands the GNU way. `operands` says
 * what they are: paths it only looks at ('paths'), files it reads
 * ('reads': regular files and directories only, so no /dev/zero or FIFO),
 * date's '+FORMAT', or nothing.
 */
export interface SimpleCommand {
  options: OptionTable;
  operands: 'paths' | 'reads' | 'date-format' | 'none';
  maxOperands?: number;
  /** grep: the first operand is the pattern unless -e or -f gave one. */
  patternFirst?: boolean;
  /** Run as another program with these arguments first (egrep -> grep -E). */
  runAs?: { program: string; args: string[] };
  /** Exit codes that are answers, not failures, and the text for empty output. */
  quietExits?: Readonly<Record<number, string>>;
}

const HELP = ['help', 'version'];
const FOLLOWS_LINKS = 'follows symbolic links while recursing, which can lead out of the allowed directories';

const ls: SimpleCommand = {
  operands: 'paths',
  options: {
    short: 'aAbBcCdDfFgGhHiI:klmnNopqQrRsStT:uUvw:xXZ1',
    long: [
      ...HELP, 'all', 'almost-all', 'author', 'escape', 'block-size=', 'ignore-backups', 'color?', 'directory', 'dired',
      'classify?', 'file-type', 'format=', 'full-time', 'group-directories-first', 'no-group', 'human-readable', 'si',
      'dereference-command-line', 'dereference-command-line-symlink-to-dir', 'hide=', 'indicator-style=', 'inode', 'ignore=',
      'kibibytes', 'numeric-uid-gid', 'literal', 'hide-control-chars', 'show-control-chars', 'quote-name', 'quoting-style=',
      'reverse', 'recursive', 'size', 'sort=', 'time=', 'time-style=', 'tabsize=', 'width=', 'context', 'zero',
    ],
    refused: { '-L': FOLLOWS_LINKS, '--dereference': FOLLOWS_LINKS },
  },
};

const cat: SimpleCommand = {
  operands: 'reads',
  options: {
    short: 'AbeEnstTuv',
    long: [...HELP, 'show-all', 'number-nonblank', 'show-ends', 'number', 'squeeze-blank', 'show-tabs', 'show-nonprinting'],
  },
};

const head: SimpleCommand = {
  operands: 'reads',
  options: { short: 'c:n:qvz', long: [...HELP, 'bytes=', 'lines=', 'quiet', 'silent', 'verbose', 'zero-terminated'], digits: 'alone' },
};

const NEVER_ENDS = 'follows the file forever; the command would only end at the timeout';
const tail: SimpleCommand = {
  operands: 'reads',
  options: {
    short: 'c:n:qvz',
    long: [...HELP, 'bytes=', 'lines=', 'quiet', 'silent', 'verbose', 'zero-terminated'],
    digits: 'alone',
    refused: {
      '-f': NEVER_ENDS, '-F': NEVER_ENDS, '--follow': NEVER_ENDS, '--retry': NEVER_ENDS,
      '-s': 'only matters with -f, which is refused', '--sleep-interval': 'only matters with -f, which is refused',
      '--pid': 'only matters with -f, which is refused', '--max-unchanged-stats': 'only matters with -f, which is refused',
    },
  },
};

const UNCHECKED_NAMES = 'reads file names from a file, which bypasses the check on every path';
const wc: SimpleCommand = {
  operands: 'reads',
  options: {
    short: 'cmlLw',
    long: [...HELP, 'bytes', 'chars', 'lines', 'max-line-length', 'words'],
    refused: { '--files0-from': UNCHECKED_NAMES },
  },
};

const GREP_OPTIONS: OptionTable = {
  short: 'EFGPe:f<iywxzsvVm:bnHhoqaIUd:rlLcTZA:B:C:',
  long: [
    ...HELP, 'extended-regexp', 'fixed-strings', 'basic-regexp', 'perl-regexp', 'regexp=', 'file<', 'ignore-case',
    'no-ignore-case', 'word-regexp', 'line-regexp', 'null-data', 'no-messages', 'invert-match', 'max-count=', 'byte-offset',
    'line-number', 'line-buffered', 'with-filename', 'no-filename', 'label=', 'only-matching', 'quiet', 'silent',
    'binary-files=', 'text', 'directories=', 'recursive', 'include=', 'exclude=', 'exclude-from<', 'exclude-dir=',
    'files-without-match', 'files-with-matches', 'count', 'initial-tab', 'null', 'before-context=', 'after-context=',
    'context=', 'group-separator=', 'no-group-separator', 'color?', 'colour?', 'binary',
  ],
  digits: 'flags',
  refused: {
    '-R': FOLLOWS_LINKS, '--dereference-recursive': FOLLOWS_LINKS,
    '-D': 'would read devices, FIFOs and sockets, which can block or never end; they are always skipped',
    '--devices': 'would read devices, FIFOs and sockets, which can block or never end; they are always skipped',
  },
};

// --devices=skip: a FIFO or device met while recursing would block or never end.
const grepLike = (extra: string[]): SimpleCommand => ({
  operands: 'reads',
  patternFirst: true,
  options: GREP_OPTIONS,
  runAs: { program: 'grep', args: ['--devices=skip', ...extra] },
  quietExits: { 1: '(no matches)' },
});

const stat: SimpleCommand = {
  operands: 'paths',
  options: { short: 'Lfc:t', long: [...HELP, 'dereference', 'file-system', 'cached=', 'format=', 'printf=', 'terse'] },
};

const file: SimpleCommand = {
  operands: 'paths',
  options: {
    short: 'bcde:F:hikLlnN0rv',
    long: [
      ...HELP, 'brief', 'checking-printout', 'debug', 'exclude=', 'exclude-quiet=', 'separator=', 'no-dereference', 'mime',
      'mime-type', 'mime-encoding', 'apple', 'extension', 'keep-going', 'dereference', 'list', 'no-buffer', 'no-pad', 'print0', 'raw',
    ],
    refused: {
      '-f': UNCHECKED_NAMES, '--files-from': UNCHECKED_NAMES,
      '-z': 'may run external decompressors', '-Z': 'may run external decompressors',
      '--uncompress': 'may run external decompressors', '--uncompress-noreport': 'may run external decompressors',
      '-C': 'writes a compiled magic file', '--compile': 'writes a compiled magic file',
      '-p': 'writes access times back to the files', '--preserve-date': 'writes access times back to the files',
      '-S': 'turns off its system-call sandbox', '--no-sandbox': 'turns off its system-call sandbox',
      '-s': 'reads block and character devices', '--special-files': 'reads block and character devices',
    },
  },
};

const du: SimpleCommand = {
  operands: 'paths',
  options: {
    short: '0aB:bcDd:HhklmPSst:xX<',
    long: [
      ...HELP, 'null', 'all', 'apparent-size', 'block-size=', 'bytes', 'total', 'dereference-args', 'max-depth=',
      'human-readable', 'inodes', 'count-links', 'no-dereference', 'separate-dirs', 'si', 'summarize', 'threshold=', 'time?',
      'time-style=', 'exclude-from<', 'exclude=', 'one-file-system',
    ],
    refused: { '-L': FOLLOWS_LINKS, '--dereference': FOLLOWS_LINKS, '--files0-from': UNCHECKED_NAMES },
  },
};

const df: SimpleCommand = {
  operands: 'paths',
  options: {
    short: 'aB:hHiklPt:Tx:v',
    long: [...HELP, 'all', 'block-size=', 'human-readable', 'si', 'inodes', 'local', 'no-sync', 'output?', 'portability', 'total', 'type=', 'print-type', 'exclude-type='],
    refused: { '--sync': 'asks the kernel to flush every file system first' },
  },
};

const SETS_CLOCK = 'sets the system clock';
const date: SimpleCommand = {
  operands: 'date-format',
  maxOperands: 1,
  options: {
    short: 'd:f<I?Rr@u',
    long: [...HELP, 'date=', 'debug', 'file<', 'iso-8601?', 'resolution', 'rfc-email', 'rfc-3339=', 'reference@', 'utc', 'universal'],
    refused: { '-s': SETS_CLOCK, '--set': SETS_CLOCK },
  },
};

const uname: SimpleCommand = {
  operands: 'none',
  options: {
    short: 'asnrvmpio',
    long: [...HELP, 'all', 'kernel-name', 'nodename', 'kernel-release', 'kernel-version', 'machine', 'processor', 'hardware-platform', 'operating-system'],
  },
};

const pwd: SimpleCommand = { operands: 'none', options: { short: 'LP', long: HELP } };

const WRITES_OUTPUT = 'writes its result to a file';
const RUNS_PROGRAM = 'runs another program';
const sort: SimpleCommand = {
  operands: 'reads',
  options: {
    short: 'bdfgiMhnRrVcCk:mst:uz',
    long: [
      ...HELP, 'ignore-leading-blanks', 'dictionary-order', 'ignore-case', 'general-numeric-sort', 'ignore-nonprinting',
      'month-sort', 'human-numeric-sort', 'numeric-sort', 'random-sort', 'reverse', 'sort=', 'version-sort', 'check?', 'debug',
      'key=', 'merge', 'stable', 'field-separator=', 'unique', 'zero-terminated',
    ],
    refused: {
      '-o': WRITES_OUTPUT, '--output': WRITES_OUTPUT,
      '--compress-program': RUNS_PROGRAM,
      '-T': 'writes temporary files into the given directory', '--temporary-directory': 'writes temporary files into the given directory',
      '--files0-from': UNCHECKED_NAMES,
      '--random-source': 'reads an arbitrary file as random bytes',
    },
  },
};

const uniq: SimpleCommand = {
  operands: 'reads',
  // A second operand is an OUTPUT file uniq would write.
  maxOperands: 1,
  options: {
    short: 'cdDf:is:uzw:',
    long: [...HELP, 'count', 'repeated', 'all-repeated?', 'skip-fields=', 'group?', 'ignore-case', 'skip-chars=', 'unique', 'zero-terminated', 'check-chars='],
  },
};

const cut: SimpleCommand = {
  operands: 'reads',
  options: {
    short: 'b:c:d:f:nsz',
    long: [...HELP, 'bytes=', 'characters=', 'delimiter=', 'fields=', 'complement', 'only-delimited', 'output-delimiter=', 'zero-terminated'],
  },
};

/** The commands besides find and git, which have parsers of their own. */
export const SIMPLE_COMMANDS: Readonly<Record<string, SimpleCommand>> = {
  ls, cat, head, tail, wc, grep: grepLike([]), egrep: grepLike(['-E']), fgrep: grepLike(['-F']),
  stat, file, du, df, date, uname, pwd, sort, uniq, cut,
};
