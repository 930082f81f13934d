import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted (by code unit) at every depth, so the same
 * value always gives the same text, and hash, whatever order its keys were
 * built in. Written by hand because JSON.stringify puts integer-like keys
 * first whatever order they were inserted in. Follows JSON.stringify for
 * what JSON can hold (`toJSON`, undefined members dropped, undefined in
 * arrays as null, non-finite numbers as null); what it cannot hold becomes
 * text rather than an exception: a bigint as its digits, a cycle as "[circular]".
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set()) ?? 'null';
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function write(value: unknown, seen: Set<object>): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'object':
      break;
    default:
      return undefined; // undefined, functions and symbols, as JSON.stringify drops them
  }
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return write(withJson.toJSON(), seen);
  if (seen.has(value)) return '"[circular]"';
  seen.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((item: unknown) => write(item, seen) ?? 'null').join(',')}]`;
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const item = write((value as Record<string, unknown>)[key], seen);
      if (item !== undefined) members.push(`${JSON.stringify(key)}:${item}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    seen.delete(value);
  }
}
