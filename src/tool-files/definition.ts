import { basename } from 'node:path';
import { z } from 'zod';
import { describeIssues, parseToml, seconds } from '../config/index.js';

/**
 * One `tools/<name>.toml` file: a command run without a shell, described to
 * the model. Top-level keys must come before the `[params.*]` tables, since
 * TOML gives keys after a table header to that table.
 */

export const PARAM_TYPES = ['string', 'integer', 'number', 'boolean'] as const;
export const RISK_LEVELS = ['read', 'write', 'high'] as const;
export type Risk = (typeof RISK_LEVELS)[number];

/**
 * Limits that keep one tool from crowding out the others: every tool's
 * description goes to the model in every request, and the tools server's
 * whole list must fit the hub's 10 MiB message limit.
 */
export const MAX_TOOL_FILE_BYTES = 64 * 1024;
export const MAX_DESCRIPTION_CHARS = 4096;
export const MAX_PARAM_DESCRIPTION_CHARS = 1024;

const paramSchema = z.strictObject({
  type: z.enum(PARAM_TYPES).default('string'),
  description: z.string().max(MAX_PARAM_DESCRIPTION_CHARS).default(''),
});

export const toolFileSchema = z.strictObject({
  description: z.string().min(1).max(MAX_DESCRIPTION_CHARS),
  command: z.array(z.string()).min(1),
  /** Seconds, as the file says; converted to milliseconds where it is used. */
  timeout: seconds(z.number().positive().max(3600), 10),
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
  const undeclared = undeclaredPlaceholders(parsed.data);
  if (undeclared.length > 0) {
    return { ok: false, path, errors: undeclared.map((p) => `${path}: command uses {${p}}, but no [params.${p}] declares it (a typo?)`) };
  }
  return { ok: true, tool: { ...parsed.data, name, path, dir } };
}

/** `{name}` placeholders of the command that name no declared parameter: a typo would otherwise run with "" in silence. */
function undeclaredPlaceholders(file: ToolFile): string[] {
  const used = file.command.flatMap((part) => [...part.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!));
  return [...new Set(used)].filter((name) => !Object.hasOwn(file.params, name));
}
