import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { redactSecrets } from '../store/index.js';

/** A tool result's content as the one text the model reads. */
export function resultToText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    if (item.type === 'text') parts.push(item.text);
    else if (item.type === 'resource') parts.push('text' in item.resource ? item.resource.text : `[resource ${item.resource.uri}]`);
    else if (item.type === 'resource_link') parts.push(`[resource ${item.uri}]`);
    else parts.push(`[${item.type} omitted]`);
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n');
}

export interface HandledOutput {
  text: string;
  /** Characters before cutting, after redaction. */
  originalChars: number;
  truncated: boolean;
}

/**
 * Secrets are redacted first (so a cut cannot leave half a key behind),
 * then the text is cut to the limit with a mark stating how much went.
 */
export function handleOutput(raw: string, limit: number): HandledOutput {
  const redacted = redactSecrets(raw);
  if (redacted.length <= limit) return { text: redacted, originalChars: redacted.length, truncated: false };
  const cut = redacted.length - limit;
  return { text: `${redacted.slice(0, limit)}\n[output truncated: ${cut} of ${redacted.length} characters cut]`, originalChars: redacted.length, truncated: true };
}
