/**
 * Durations of config.toml and tool files: written in seconds there, read
 * as milliseconds by the code. The schema makes each one a Duration when
 * the file is loaded, so no module converts units on its own; `config check`
 * and other output show the seconds again (asWritten).
 */
import { z } from 'zod';

export class Duration {
  readonly ms: number;

  constructor(readonly seconds: number) {
    this.ms = Math.round(seconds * 1000);
  }
}

/** A key in seconds (`schema` says which), with its default in seconds; the parsed value is a Duration. */
export function seconds(schema: z.ZodNumber, defaultSeconds: number) {
  return schema.prefault(defaultSeconds).transform((value) => new Duration(value));
}

/** The value as a file would say it: every Duration back to its seconds (for printing and TOML). */
export function asWritten<T>(value: T): unknown {
  if (value instanceof Duration) return value.seconds;
  if (Array.isArray(value)) return value.map(asWritten);
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, asWritten(inner)]));
  }
  return value;
}
