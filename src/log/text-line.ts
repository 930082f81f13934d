import type { LogLevel } from './log-output.js';

/** A field's value on a terminal line is cut here: a memory mismatch list or a stderr tail would fill the screen. */
const MAX_VALUE_CHARS = 160;

/**
 * One log line for a person: `[warn] memory_snapshot_failed: error="disk full"`.
 * Strings without spaces stay bare; anything else is written as JSON.
 */
export function textLogLine(level: LogLevel, event: string, fields: Record<string, unknown>): string {
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${shortValue(value)}`);
  return `[${level}] ${event}${parts.length > 0 ? `: ${parts.join(' ')}` : ''}\n`;
}

function shortValue(value: unknown): string {
  const text = typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}
