import { argName, invalid, refused } from './errors.js';

/**
 * What an option takes: nothing, a value (glued or the next argument), a
 * path (checked), a file it reads (checked, regular files only), or an
 * optional value that only counts glued (`-Ifmt`, `--color=never`), as
 * getopt_long's optional_argument does.
 */
export type ValueKind = 'none' | 'value' | 'path' | 'read' | 'optional';

/**
 * An allow-list of options in a getopt-like notation. `short`: letters, each
 * followed by ':' (value), '@' (path), '<' (file read) or '?' (optional,
 * glued). `long`: names, ending in '=', '@', '<' or '?' the same way.
 * Long options must be spelled in full: getopt_long would also take
 * `--out` for `--output`, which an exact-match list would not see coming.
 */
export interface OptionTable {
  short: string;
  long: readonly string[];
  /** `-x` or `--name` -> why it is refused (checked before the allow-list). */
  refused?: Readonly<Record<string, string>>;
  /** `-5` alone (head, tail, git log) is a count; for grep digits are flags of their own. */
  digits?: 'alone' | 'flags';
}

export interface ParsedOption {
  /** As spelled: `-n` or `--lines`. */
  name: string;
  value?: string;
  /** Index in the full argv of the option, and of its value. */
  index: number;
  valueIndex?: number;
  kind: ValueKind;
}

export interface Operand {
  value: string;
  index: number;
  afterDashDash: boolean;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: Operand[];
}

const KINDS: Record<string, ValueKind> = { ':': 'value', '@': 'path', '<': 'read', '?': 'optional', '=': 'value' };

interface CompiledTable {
  short: Map<string, ValueKind>;
  long: Map<string, ValueKind>;
  refused: Readonly<Record<string, string>>;
  digits?: 'alone' | 'flags';
}

const compiled = new WeakMap<OptionTable, CompiledTable>();

function compile(table: OptionTable): CompiledTable {
  let done = compiled.get(table);
  if (done) return done;
  const short = new Map<string, ValueKind>();
  for (let i = 0; i < table.short.length; i++) {
    const letter = table.short[i]!;
    const kind = KINDS[table.short[i + 1] ?? ''];
    short.set(letter, kind ?? 'none');
    if (kind) i++;
  }
  const long = new Map<string, ValueKind>();
  for (const entry of table.long) {
    const kind = KINDS[entry.at(-1) ?? ''];
    long.set(kind ? entry.slice(0, -1) : entry, kind ?? 'none');
  }
  done = { short, long, refused: table.refused ?? {}, ...(table.digits ? { digits: table.digits } : {}) };
  compiled.set(table, done);
  return done;
}

/**
 * Splits `argv[start..]` into options and operands as GNU getopt_long does
 * (options may follow operands; `--` ends them; `-` alone is an operand),
 * refusing any option that is not on the table. `command` names the
 * program in messages.
 */
export function parseOptions(command: string, table: OptionTable, argv: readonly string[], start: number): ParsedArgs {
  const spec = compile(table);
  const options: ParsedOption[] = [];
  const operands: Operand[] = [];
  let afterDashDash = false;
  for (let i = start; i < argv.length; i++) {
    const arg = argv[i]!;
    if (afterDashDash || arg === '-' || !arg.startsWith('-')) {
      operands.push({ value: arg, index: i, afterDashDash });
    } else if (arg === '--') {
      afterDashDash = true;
    } else if (arg.startsWith('--')) {
      i = parseLong(command, spec, argv, i, options);
    } else if (/^-\d+$/.test(arg) && spec.digits === 'alone') {
      options.push({ name: arg, index: i, kind: 'none' });
    } else {
      i = parseCluster(command, spec, argv, i, options);
    }
  }
  return { options, operands };
}

function parseLong(command: string, spec: CompiledTable, argv: readonly string[], i: number, out: ParsedOption[]): number {
  const arg = argv[i]!;
  const eq = arg.indexOf('=');
  const name = eq === -1 ? arg : arg.slice(0, eq);
  const reason = spec.refused[name];
  if (reason !== undefined) throw refused(`${command} ${name} ${reason}`);
  const kind = spec.long.get(name.slice(2));
  if (kind === undefined) throw refused(`${command} option ${name} (${argName(i, arg)}) is not on the allow-list; long options must be spelled in full`);
  if (eq !== -1) {
    if (kind === 'none') throw invalid(`${command} ${name} takes no value (${argName(i, arg)})`);
    out.push({ name, value: arg.slice(eq + 1), index: i, valueIndex: i, kind });
    return i;
  }
  if (kind === 'none' || kind === 'optional') {
    out.push({ name, index: i, kind });
    return i;
  }
  if (i + 1 >= argv.length) throw invalid(`${command} ${name} needs a value`);
  out.push({ name, value: argv[i + 1]!, index: i, valueIndex: i + 1, kind });
  return i + 1;
}

function parseCluster(command: string, spec: CompiledTable, argv: readonly string[], i: number, out: ParsedOption[]): number {
  const arg = argv[i]!;
  for (let j = 1; j < arg.length; j++) {
    const letter = arg[j]!;
    const name = `-${letter}`;
    const reason = spec.refused[name];
    if (reason !== undefined) throw refused(`${command} ${name} ${reason}`);
    const kind = /\d/.test(letter) && spec.digits === 'flags' ? 'none' : spec.short.get(letter);
    if (kind === undefined) throw refused(`${command} option ${name} (in ${argName(i, arg)}) is not on the allow-list`);
    if (kind === 'none') {
      out.push({ name, index: i, kind });
      continue;
    }
    const glued = arg.slice(j + 1);
    if (glued !== '' || kind === 'optional') {
      out.push({ name, ...(glued === '' ? {} : { value: glued, valueIndex: i }), index: i, kind });
      return i;
    }
    if (i + 1 >= argv.length) throw invalid(`${command} ${name} needs a value`);
    out.push({ name, value: argv[i + 1]!, index: i, valueIndex: i + 1, kind });
    return i + 1;
  }
  return i;
}

/** Whether any of `names` was given. */
export function hasOption(parsed: ParsedArgs, ...names: string[]): boolean {
  return parsed.options.some((o) => names.includes(o.name));
}
