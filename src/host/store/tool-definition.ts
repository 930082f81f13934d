import { canonicalJson, sha256Hex } from './canonical-json.js';
import { redactSecrets } from '../../secrets/index.js';

/** The parts of an MCP tool definition that are pinned (an SDK `Tool` fits). */
export interface PinnedDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/**
 * The pin of a tool: sha256 hex of the canonical JSON of its name, title,
 * description, schemas and annotations and its server's command line, and
 * that canonical JSON (stored with the pin, so a change can be described).
 * Other members a server may send (`_meta`, icons) are not pinned: they do
 * not reach the model.
 */
export function definitionHash(definition: PinnedDefinition, commandLine: string): { hash: string; canonical: string } {
  const canonical = canonicalJson({
    name: definition.name,
    title: definition.title,
    description: definition.description ?? '',
    inputSchema: definition.inputSchema,
    outputSchema: definition.outputSchema,
    annotations: definition.annotations,
    commandLine,
  });
  return { hash: sha256Hex(canonical), canonical };
}

const SHORT = 120;
const CONTEXT = 30;
const EXCERPT = 400;

/**
 * What changed between two canonical definitions (from `definitionHash`), one
 * line per change, for `desktop-assistant tools approve NAME`:
 * `description: "old" -> "new"`, `inputSchema.properties.x added: {...}`,
 * `annotations.readOnlyHint removed (was true)`. A long text shows the changed
 * part with some context, so an instruction appended to a long description
 * cannot hide behind a cut. Values are shown with secrets redacted. Empty
 * when nothing changed.
 */
export function describeDefinitionChange(before: string, after: string): string[] {
  const lines: string[] = [];
  const old = parse(before);
  const now = parse(after);
  if (now === UNREADABLE) return ['the new definition is not valid JSON'];
  if (old === UNREADABLE) return [`no readable earlier definition; now: ${show(now, 2 * EXCERPT)}`];
  diff(old, now, '', lines);
  return lines;
}

const UNREADABLE = Symbol('unreadable');

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return UNREADABLE;
  }
}

function diff(before: unknown, after: unknown, path: string, out: string[]): void {
  if (canonicalJson(before) === canonicalJson(after)) return;
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const at = member(path, key);
      if (!Object.hasOwn(before, key)) out.push(`${at} added: ${show(after[key])}`);
      else if (!Object.hasOwn(after, key)) out.push(`${at} removed (was ${show(before[key])})`);
      else diff(before[key], after[key], at, out);
    }
    return;
  }
  const label = path || '(definition)';
  if (Array.isArray(before) && Array.isArray(after) && (show(before).length > SHORT || show(after).length > SHORT)) {
    for (let i = 0; i < Math.max(before.length, after.length); i += 1) {
      const at = `${path}[${i}]`;
      if (i >= before.length) out.push(`${at} added: ${show(after[i])}`);
      else if (i >= after.length) out.push(`${at} removed (was ${show(before[i])})`);
      else diff(before[i], after[i], at, out);
    }
    return;
  }
  if (typeof before === 'string' && typeof after === 'string' && (before.length > SHORT || after.length > SHORT)) {
    out.push(describeTextChange(label, before, after));
    return;
  }
  out.push(`${label}: ${show(before)} -> ${show(after)}`);
}

/** The changed middle of two long texts, with a little context either side. */
function describeTextChange(label: string, before: string, after: string): string {
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < before.length - prefix &&
    suffix < after.length - prefix &&
    before[before.length - 1 - suffix] === after[after.length - 1 - suffix]
  ) {
    suffix += 1;
  }
  const excerpt = (text: string): string => {
    const start = Math.max(0, prefix - CONTEXT);
    const end = Math.min(text.length, text.length - suffix + CONTEXT);
    const middle = text.slice(prefix, text.length - suffix);
    const shown = middle.length > EXCERPT ? `${middle.slice(0, EXCERPT)}…(+${middle.length - EXCERPT} chars)` : middle;
    const body = `${text.slice(start, prefix)}${shown}${text.slice(text.length - suffix, end)}`;
    return `${start > 0 ? '…' : ''}${redactSecrets(JSON.stringify(body))}${end < text.length ? '…' : ''}`;
  };
  return `${label} changed at character ${prefix} (${before.length} -> ${after.length} chars): ${excerpt(before)} -> ${excerpt(after)}`;
}

function show(value: unknown, max = SHORT): string {
  const text = redactSecrets(value === undefined ? 'undefined' : canonicalJson(value));
  return text.length > max ? `${text.slice(0, max)}…(+${text.length - max} chars)` : text;
}

function member(path: string, key: string): string {
  const part = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  if (path === '') return part;
  return part.startsWith('"') ? `${path}[${part}]` : `${path}.${part}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
