import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolDefinition } from './definition.js';

/**
 * The argument values a tool's command sees: every declared parameter, a
 * missing or null one as the empty string.
 */
export function parameterValues(tool: ToolDefinition, args: Record<string, unknown>): Map<string, string> {
  const values = new Map<string, string>();
  for (const name of Object.keys(tool.params)) values.set(name, asArgument(args[name]));
  return values;
}

function asArgument(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * Fills `{name}` inside each argv element. There is no shell, so a value
 * stays inside the element it was placed in: `x; rm -rf ~` is one argument.
 * Every placeholder names a declared parameter (parseToolFile refuses a
 * file where one does not); a parameter the call left out is "".
 */
export function renderArgv(command: readonly string[], values: ReadonlyMap<string, string>): string[] {
  return command.map((part) => part.replace(/\{(\w+)\}/g, (_, name: string) => values.get(name) ?? ''));
}

/**
 * `command[0]` without a slash is looked up in the tool's folder first, then
 * PATH. Synchronous and without exceptions on purpose: one stat costs
 * microseconds, while a trip through libuv's thread pool, or building the
 * ENOENT error for a program that lives on PATH, costs more on every call.
 */
export function resolveProgram(program: string, toolDir: string): string {
  if (program.includes('/')) return program;
  const local = join(toolDir, program);
  return existsSync(local) ? local : program;
}
