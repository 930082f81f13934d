import { canonicalJson, sha256Hex } from './canonical-json.js';
import { redactSecretsInValue } from '../../secrets/index.js';

/**
 * What the audit keeps of a tool call's arguments. `hash`: sha256 hex of
 * their canonical JSON (keys sorted at every depth), so equal arguments give
 * equal hashes whatever their key order. `summary`: the same JSON with
 * secrets redacted, cut to `maxChars` with a mark saying how much was cut.
 */
export function summarizeArguments(args: unknown, maxChars = 200): { hash: string; summary: string } {
  return {
    hash: sha256Hex(canonicalJson(args)),
    summary: truncateMarked(canonicalJson(redactSecretsInValue(args)), maxChars),
  };
}

/** `text` cut so that it and the mark `…(+N chars)` fit in `maxChars` (or the mark alone, when it is longer). */
export function truncateMarked(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let keep = Math.max(0, maxChars - markFor(text.length).length);
  // Never cut between the two halves of a surrogate pair.
  if (keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))) keep -= 1;
  return `${text.slice(0, keep)}${markFor(text.length - keep)}`;
}

function markFor(cut: number): string {
  return `…(+${cut} chars)`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
