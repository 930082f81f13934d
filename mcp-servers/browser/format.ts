import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppError } from '../../src/errors/index.js';
import type { Extraction, PageReading } from './page-content.js';

/** What a call answers besides the page: where it ended up and with what status. */
export interface Landing {
  url: string;
  /** HTTP status of the main document; null for about:blank. */
  status: number | null;
}

export function formatReading(landing: Landing, reading: PageReading): string {
  const lines = [`Title: ${reading.title || '(none)'}`, `URL: ${landing.url}`];
  if (landing.status !== null) lines.push(`Status: ${landing.status}`);
  lines.push('', 'Text:', reading.text || '(no text)', '');
  const more = reading.linkCount > reading.links.length ? `, first ${reading.links.length} shown` : '';
  lines.push(reading.linkCount === 0 ? 'Links: none' : `Links (${reading.linkCount}${more}):`);
  for (const link of reading.links) lines.push(`- ${link.text || '(no text)'} <${link.href}>`);
  return lines.join('\n');
}

export function formatExtraction(landing: Landing, query: { selector: string; attribute?: string }, extraction: Extraction): string {
  const what = query.attribute === undefined ? 'text' : `attribute ${query.attribute}`;
  const shown = extraction.values.length < extraction.matches ? `, first ${extraction.values.length} shown` : '';
  const lines = [`URL: ${landing.url}`];
  if (landing.status !== null) lines.push(`Status: ${landing.status}`);
  lines.push(`Selector: ${query.selector} (${what}; ${extraction.matches} matches${shown})`, '');
  extraction.values.forEach((value, i) => lines.push(`${i + 1}. ${value ?? `(no ${query.attribute ?? 'text'})`}`));
  if (extraction.matches === 0) lines.push('(no element matches)');
  return lines.join('\n');
}

/**
 * At most `maxChars` characters, the mark included: a cut text ends with a
 * line that says so, so neither the model nor a reader takes it for the end.
 */
export function limitOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const mark = `\n[truncated: the output is longer than ${maxChars} characters]`;
  return text.slice(0, Math.max(0, maxChars - mark.length)) + mark;
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** An error as a result, with its stable code: `{"error":{"code":"...","message":"..."}}`. */
export function errorResult(error: AppError): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code: error.code, message: error.message } }) }], isError: true };
}
