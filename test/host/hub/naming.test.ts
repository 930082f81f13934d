import { describe, expect, it } from 'vitest';
import { assignToolNames, sanitizeToolName, TOOL_NAME_PATTERN, type ToolRef } from '../../../src/host/hub/index.js';

const ref = (server: string, tool: string): ToolRef => ({ server, tool });
const namesOf = (refs: ToolRef[]): Record<string, string> =>
  Object.fromEntries(assignToolNames(refs).map((n) => [`${n.server}/${n.tool}`, n.name]));

/** Every permutation-free shuffle we need: reversed and rotated copies. */
function orders<T>(items: T[]): T[][] {
  const rotations = items.map((_, i) => [...items.slice(i), ...items.slice(0, i)]);
  return [...rotations, ...rotations.map((r) => [...r].reverse())];
}

describe('sanitizeToolName', () => {
  it('replaces characters outside [a-zA-Z0-9_-] with _', () => {
    expect(sanitizeToolName('files.read')).toBe('files_read');
    expect(sanitizeToolName('a b/c:d@e')).toBe('a_b_c_d_e');
    expect(sanitizeToolName('Get-Sum_2')).toBe('Get-Sum_2');
    expect(sanitizeToolName('météo')).toBe('m_t_o');
    expect(sanitizeToolName('😀x')).toBe('_x');
  });

  it('cuts to 64 characters and never answers an empty name', () => {
    expect(sanitizeToolName('x'.repeat(100))).toBe('x'.repeat(64));
    expect(sanitizeToolName('')).toBe('_');
  });
});

describe('assignToolNames', () => {
  it('keeps a tool name that is already legal and unique', () => {
    expect(namesOf([ref('tools', 'now'), ref('everything', 'echo')])).toEqual({ 'tools/now': 'now', 'everything/echo': 'echo' });
  });

  it('makes illegal names legal and cuts long ones to 64', () => {
    const names = namesOf([ref('srv', 'files.read'), ref('srv', 'y'.repeat(80))]);
    expect(names['srv/files.read']).toBe('files_read');
    expect(names[`srv/${'y'.repeat(80)}`]).toBe('y'.repeat(64));
  });

  it('prefixes by server where two servers offer the same name', () => {
    expect(namesOf([ref('tools', 'echo'), ref('everything', 'echo'), ref('tools', 'now')])).toEqual({
      'tools/echo': 'tools_echo',
      'everything/echo': 'everything_echo',
      'tools/now': 'now',
    });
  });

  it('treats names that only sanitizing made equal as a collision', () => {
    expect(namesOf([ref('a', 'get.sum'), ref('b', 'get_sum')])).toEqual({ 'a/get.sum': 'a_get_sum', 'b/get_sum': 'b_get_sum' });
  });

  it('breaks a tie that prefixing leaves with a hash suffix, still legal and within 64', () => {
    // Same server, two tools that sanitize alike: the prefix cannot separate them.
    const refs = [ref('s', 'x.y'), ref('s', 'x_y'), ref('t', 'x_y')];
    const named = assignToolNames(refs);
    const names = named.map((n) => n.name);
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(namesOf(refs)['t/x_y']).toBe('t_x_y');
    expect(namesOf(refs)['s/x.y']).toMatch(/^s_x_y_[0-9a-f]{6}$/);
    expect(namesOf(refs)['s/x_y']).toMatch(/^s_x_y_[0-9a-f]{6}$/);
  });

  it('does not let a prefixed name take a name another tool has plainly', () => {
    // a + b_c would become a_b_c, which server z offers as is.
    const names = namesOf([ref('a', 'b_c'), ref('q', 'b_c'), ref('z', 'a_b_c')]);
    expect(names['z/a_b_c']).toBe('a_b_c');
    expect(names['q/b_c']).toBe('q_b_c');
    expect(names['a/b_c']).toMatch(/^a_b_c_[0-9a-f]{6}$/);
  });

  it('keeps prefixed and hashed names within 64 characters', () => {
    const long = 'k'.repeat(70);
    const named = assignToolNames([ref('server-one', long), ref('server-two', long), ref('s', `${'k'.repeat(70)}.`), ref('s', `${'k'.repeat(70)}_`)]);
    expect(new Set(named.map((n) => n.name)).size).toBe(4);
    for (const { name } of named) {
      expect(name).toMatch(TOOL_NAME_PATTERN);
      expect(name.length).toBeLessThanOrEqual(64);
    }
    // Two long names on different servers whose prefixed forms cut to the same 64 characters.
    const cut = assignToolNames([ref('aaaa', `${'m'.repeat(70)}1`), ref('aaaa', `${'m'.repeat(70)}2`), ref('bbbb', `${'m'.repeat(70)}1`)]);
    expect(new Set(cut.map((n) => n.name)).size).toBe(3);
    for (const { name } of cut) expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  it('gives the same names whatever order the pairs come in', () => {
    const refs = [
      ref('tools', 'echo'),
      ref('everything', 'echo'),
      ref('everything', 'get-sum'),
      ref('s', 'x.y'),
      ref('s', 'x_y'),
      ref('t', 'x_y'),
      ref('a', 'b_c'),
      ref('q', 'b_c'),
      ref('z', 'a_b_c'),
      ref('tools', 'now'),
    ];
    const expected = assignToolNames(refs);
    for (const order of orders(refs)) expect(assignToolNames(order)).toEqual(expected);
  });

  it('names a repeated pair once and sorts the result by name', () => {
    const named = assignToolNames([ref('s', 'b'), ref('s', 'a'), ref('s', 'b')]);
    expect(named).toEqual([
      { server: 's', tool: 'a', name: 'a' },
      { server: 's', tool: 'b', name: 'b' },
    ]);
  });

  it('names nothing for no tools', () => {
    expect(assignToolNames([])).toEqual([]);
  });
});
