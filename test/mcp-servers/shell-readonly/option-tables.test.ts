import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SIMPLE_COMMANDS } from '../../../mcp-servers/shell-readonly/command-table.js';

/**
 * The allow-lists say, for each long option, whether it takes a value
 * (`--x VALUE` consumes the next argument) or only an optional glued one.
 * Getting that wrong would let a path slip through as an "option value",
 * so each is checked against the program's own --help.
 */
const GNU = ['ls', 'cat', 'head', 'tail', 'wc', 'grep', 'stat', 'du', 'df', 'date', 'uname', 'sort', 'uniq', 'cut'];

function help(program: string): string {
  return execFileSync(`/usr/bin/${program}`, ['--help'], { encoding: 'utf8', env: { LC_ALL: 'C' } });
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

describe('option tables against --help', () => {
  it.each(GNU)('%s', (program) => {
    const text = help(program);
    const problems: string[] = [];
    for (const entry of SIMPLE_COMMANDS[program]!.options.long) {
      const suffix = /[=@<?]$/.test(entry) ? entry.at(-1)! : '';
      const name = suffix ? entry.slice(0, -1) : entry;
      if (name === 'help' || name === 'version') continue;
      const required = new RegExp(`--${escape(name)}=`).test(text);
      const optional = new RegExp(`--${escape(name)}\\[=`).test(text);
      const bare = new RegExp(`--${escape(name)}(?![\\w=\\[-])`).test(text);
      if (suffix === '?') {
        if (!optional && !(bare && required)) problems.push(`--${name}: listed as optional, help shows ${required ? 'a required value' : 'no value'}`);
      } else if (suffix) {
        if (!required || optional) problems.push(`--${name}: listed as taking a value, help shows ${optional ? 'an optional one' : 'none'}`);
      } else if (!bare) {
        problems.push(`--${name}: listed as a flag, not in --help as one`);
      }
    }
    expect(problems).toEqual([]);
  });

  // A short option documented on one line as `-x, --long=VALUE` must take a
  // value, and one documented with a bare `--long` must not. `--long[=X]`
  // says nothing: the short form of an optional-value option is a flag (ls -F).
  // sort's `-C, --check=quiet` and ls's `-p, --indicator-style=slash` name literal values.
  const LITERAL_VALUES: Record<string, string> = { sort: 'C', ls: 'p' };
  it.each(GNU)('%s short options', (program) => {
    const text = help(program);
    const short = SIMPLE_COMMANDS[program]!.options.short;
    const problems: string[] = [];
    for (let i = 0; i < short.length; i++) {
      const letter = short[i]!;
      const suffix = /[:@<?]/.test(short[i + 1] ?? '') ? short[++i]! : '';
      const documented = new RegExp(`^[ \\t]+-${escape(letter)},?[ \\t]+--[\\w-]+(\\[=|=)?`, 'm').exec(text);
      if (!documented || documented[1] === '[=' || LITERAL_VALUES[program]?.includes(letter)) continue;
      const helpKind = documented[1] === '=' ? 'value' : 'flag';
      const tableKind = suffix === '?' ? 'optional' : suffix ? 'value' : 'flag';
      if (helpKind !== tableKind) problems.push(`-${letter}: listed as ${tableKind}, help shows ${helpKind}`);
    }
    expect(problems).toEqual([]);
  });
});
