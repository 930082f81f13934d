import { invalid } from './errors.js';

export interface ShellInput {
  argv: string[];
  cwd?: string;
}

export const MAX_ARGS = 64;
/** PATH_MAX: no path or option this tool accepts needs more. */
export const MAX_ARG_CHARS = 4096;

// Option-looking arguments written with a dash other than '-' (U+2010-2015,
// U+2212 minus, small and full-width hyphen-minus): the program would take
// them as file names, but the caller most likely meant an option, and such
// spellings are how filters are dodged. Refused so the mistake is visible.
const LOOKALIKE_DASH = /^[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/u;

/** Checks the tool arguments against the input schema, with a message that names the offending part. */
export function parseInput(args: unknown): ShellInput {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw invalid('arguments must be an object: {"argv": [...], "cwd"?: "..."}');
  const record = args as Record<string, unknown>;
  const extra = Object.keys(record).filter((k) => k !== 'argv' && k !== 'cwd');
  if (extra.length > 0) throw invalid(`unknown argument ${JSON.stringify(extra[0])}: only argv and cwd are accepted (no env, no shell)`);
  const { argv, cwd } = record;
  if (!Array.isArray(argv) || argv.length === 0) throw invalid('argv must be a non-empty array of strings, e.g. ["ls", "-l"]');
  if (argv.length > MAX_ARGS) throw invalid(`argv has ${argv.length} items; at most ${MAX_ARGS}`);
  argv.forEach((arg, i) => checkString(arg, `argv[${i}]`));
  if (cwd !== undefined) checkString(cwd, 'cwd');
  return cwd === undefined ? { argv: argv as string[] } : { argv: argv as string[], cwd: cwd as string };
}

function checkString(value: unknown, where: string): void {
  if (typeof value !== 'string') throw invalid(`${where} must be a string`);
  if (value.includes('\0')) throw invalid(`${where} contains a NUL byte`);
  if (value.length > MAX_ARG_CHARS) throw invalid(`${where} is ${value.length} characters long; at most ${MAX_ARG_CHARS}`);
  if (LOOKALIKE_DASH.test(value)) throw invalid(`${where} ${JSON.stringify(value.slice(0, 40))} starts with a dash that is not '-'; write options with an ASCII '-'`);
}
