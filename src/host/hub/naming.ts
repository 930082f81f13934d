import { createHash } from 'node:crypto';

/**
 * Exposed tool names: legal OpenAI function names, unique across servers,
 * and a pure function of the set of (server, tool) pairs, so the same
 * servers give the same names after every restart, whatever order they
 * answered in.
 */

/** OpenAI function names: https://platform.openai.com/docs/api-reference/chat/create */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const TOOL_NAME_MAX = 64;

export interface ToolRef {
  server: string;
  /** The tool's name on its server. */
  tool: string;
}

export interface NamedToolRef extends ToolRef {
  /** The exposed name. */
  name: string;
}

/** Replaces every character outside `[a-zA-Z0-9_-]` with `_` and cuts to `max`. */
export function sanitizeToolName(raw: string, max = TOOL_NAME_MAX): string {
  // Array.from: cut by code point, so an emoji becomes one `_`, not two.
  const legal = Array.from(raw, (ch) => (/^[a-zA-Z0-9_-]$/.test(ch) ? ch : '_')).join('');
  return (legal === '' ? '_' : legal).slice(0, max);
}

/**
 * Names every pair. In three rounds, each symmetric (a name two pairs want
 * goes to neither, so no pair wins by arriving first):
 * 1. the tool's own name, sanitized, where no other pair maps to it;
 * 2. `server_tool`, sanitized and cut to 64, where still unique;
 * 3. `server_tool` cut shorter plus `_` and 6 hex digits of a hash of the
 *    pair; a further number in the hash only if even that is taken.
 * Duplicate pairs are named once. The result is sorted by name.
 */
export function assignToolNames(refs: readonly ToolRef[]): NamedToolRef[] {
  const pairs = uniquePairs(refs);
  const named = new Map<ToolRef, string>();
  const taken = new Set<string>();

  const round = (candidates: ToolRef[], nameOf: (ref: ToolRef) => string): ToolRef[] => {
    const wanted = new Map<string, ToolRef[]>();
    for (const ref of candidates) {
      const name = nameOf(ref);
      wanted.set(name, [...(wanted.get(name) ?? []), ref]);
    }
    const left: ToolRef[] = [];
    for (const [name, claimants] of wanted) {
      const [only] = claimants;
      if (claimants.length === 1 && only !== undefined && !taken.has(name)) {
        named.set(only, name);
        taken.add(name);
      } else {
        left.push(...claimants);
      }
    }
    return left.sort(comparePairs);
  };

  const contested = round(pairs, (ref) => sanitizeToolName(ref.tool));
  const stillContested = round(contested, prefixedName);
  for (const ref of stillContested) {
    let name = hashedName(ref, 0);
    for (let extra = 1; taken.has(name); extra += 1) name = hashedName(ref, extra);
    named.set(ref, name);
    taken.add(name);
  }

  return pairs
    .map((ref) => ({ server: ref.server, tool: ref.tool, name: named.get(ref) ?? '' }))
    .sort((a, b) => compareStrings(a.name, b.name));
}

function prefixedName(ref: ToolRef): string {
  return sanitizeToolName(`${ref.server}_${ref.tool}`);
}

const HASH_CHARS = 6;

function hashedName(ref: ToolRef, extra: number): string {
  const hash = createHash('sha256').update(`${ref.server}\0${ref.tool}\0${extra}`).digest('hex').slice(0, HASH_CHARS);
  return `${sanitizeToolName(`${ref.server}_${ref.tool}`, TOOL_NAME_MAX - HASH_CHARS - 1)}_${hash}`;
}

/** Sorted, without repeats: the input order must not matter. */
function uniquePairs(refs: readonly ToolRef[]): ToolRef[] {
  const seen = new Map<string, ToolRef>();
  for (const ref of refs) {
    const key = `${ref.server}\0${ref.tool}`;
    if (!seen.has(key)) seen.set(key, { server: ref.server, tool: ref.tool });
  }
  return [...seen.values()].sort(comparePairs);
}

function comparePairs(a: ToolRef, b: ToolRef): number {
  return compareStrings(a.server, b.server) || compareStrings(a.tool, b.tool);
}

/** By code unit: localeCompare depends on the machine's locale, and names must not. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
