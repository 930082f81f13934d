import type { z } from 'zod';

/**
 * Zod issues as sentences that name the full key path, the way a user reads
 * their TOML file: `whisper.port must be an integer (got string)`.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap(describeIssue);
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  const at = issue.path.map(String).join('.');
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const path = `${at ? `${at}.` : ''}${key}`;
        const moved = MOVED_KEYS[path];
        return moved === undefined ? `unknown key ${path}` : `unknown key ${path} (it moved to ${moved})`;
      });
    case 'invalid_type':
      if (issue.input === undefined) return [`missing key ${at}`];
      return [`${at || 'the file'} must be ${typeName(issue.expected)} (got ${typeOfTomlValue(issue.input)})`];
    case 'invalid_value':
      return [`${at} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`];
    case 'too_small':
      return [`${at} must be ${issue.origin === 'array' || issue.origin === 'string' ? 'at least' : issue.inclusive ? '>=' : '>'} ${bound(issue)}`];
    case 'too_big':
      return [`${at} must be ${issue.origin === 'array' || issue.origin === 'string' ? 'at most' : issue.inclusive ? '<=' : '<'} ${bound(issue)}`];
    case 'invalid_format':
      return [`${at} must be a valid ${issue.format === 'url' ? 'URL' : issue.format} (got ${JSON.stringify(issue.input)})`];
    case 'invalid_key':
      return [`${at}: ${issue.issues.map((inner) => inner.message).join('; ')}`];
    case 'invalid_union':
      return [`${at} must be ${unionExpectation(issue)} (got ${typeOfTomlValue(issue.input)})`];
    default:
      return [`${at}: ${issue.message}`];
  }
}

/** Keys an earlier version had, and where they live now. */
const MOVED_KEYS: Readonly<Record<string, string>> = {
  'duplex.partial_interval_ms': 'stt.partial_interval_ms',
};

function bound(issue: { origin: string; minimum?: unknown; maximum?: unknown }): string {
  const n = String(issue.minimum ?? issue.maximum);
  if (issue.origin === 'string') return `${n} character${n === '1' ? '' : 's'}`;
  if (issue.origin === 'array') return `${n} item${n === '1' ? '' : 's'}`;
  return n;
}

function unionExpectation(issue: z.core.$ZodIssueInvalidUnion): string {
  const types = new Set<string>();
  const values = new Set<string>();
  for (const branch of issue.errors) {
    for (const inner of branch) {
      if (inner.code === 'invalid_type') types.add(inner.expected);
      if (inner.code === 'invalid_value') for (const value of inner.values) values.add(JSON.stringify(value));
    }
  }
  if (values.size === 0) return types.size > 0 ? [...types].map(typeName).join(' or ') : 'a valid value';
  // A switch with a word of its own (true, false or "auto"): every value spelled out.
  const all = [...[...types].flatMap((t) => (t === 'boolean' ? ['true', 'false'] : [typeName(t)])), ...values];
  return all.length === 1 ? all[0]! : `${all.slice(0, -1).join(', ')} or ${all.at(-1)}`;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'a table',
  record: 'a table',
  array: 'an array',
};

function typeName(expected: string): string {
  return TYPE_NAMES[expected] ?? expected;
}

function typeOfTomlValue(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'table';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'float';
  return typeof value;
}
