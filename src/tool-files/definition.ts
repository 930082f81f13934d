import { basename } from 'node:path';
import { z } from 'zod';
import { describeIssues, parseToml } from '../config/index.js';

/**
 * One `tools/<name>.toml` file: a command run without a shell, described to
 * the model. Top-level keys must come before the `[params.*]` tables, since
 * TOML gives keys after a table header to that table.
 */

export const PARAM_TYPES = ['string', 'integer', 'number', 'boolean'] as const;
export const RISK_LEVELS = ['read', 'write', 'high'] as const;
export type Risk = (typeof RISK_LEVELS)[number];

const paramSchema = z.strictObject({
  type: z.enum(PARAM_TYPES).default('string'),
  description: z.string().default(''),
});

export const toolFileSchema = z.strictObject({
  description: z.string().min(1),
  command: z.array(z.string()).min(1),
  /** Seconds, as the file says; converted to milliseconds where it is used. */
  timeout: z.number().positive().max(3600).default(10),
  risk: z.enum(RISK_LEVELS).default('read'),
  announce: z.record(z.string(), z.array(z.string().min(1))).default({}),
  params: z
    .record(z.string().regex(/^\w+$/, 'a parameter name is letters, digits and _ only'), paramSchema)
    .default({}),
});

export type ToolFile = z.infer<typeof toolFileSchema>;

export interface ToolDefinition extends ToolFile {
  /** The tool's name: the file name without `.toml`. */
  name: string;
  /** The file it came from. */
  path: string;
  /** Where `command[0]` without a slash is looked up before PATH. */
  dir: string;
}

/** Names MCP clients and OpenAI function calling both accept. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export type ToolFileResult = { ok: true; tool: ToolDefinition } | { ok: false; path: string; errors: string[] };

/** Parses and validates the text of a tool file; errors name the file. */
export function parseToolFile(text: string, path: string, dir: string): ToolFileResult {
  const name = basename(path, '.toml');
  if (!TOOL_NAME_PATTERN.test(name)) {
    return { ok: false, path, errors: [`${path}: the file name must be letters, digits, _ or - (at most 64) before .toml`] };
  }
  const read = parseToml(text, path);
  if (!read.ok) return { ok: false, path, errors: [read.missing ? `${path}: not found` : read.error] };
  const parsed = toolFileSchema.safeParse(read.value, { reportInput: true });
  if (!parsed.success) return { ok: false, path, errors: describeIssues(parsed.error.issues).map((e) => `${path}: ${e}`) };
  return { ok: true, tool: { ...parsed.data, name, path, dir } };
}
