import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseToolFile, type ToolDefinition, type ToolFileResult } from './definition.js';

export interface ToolSet {
  tools: ToolDefinition[];
  /** One entry per file that could not be used, each naming the file. */
  errors: string[];
}

/** Every `*.toml` of a tools folder, in name order. A missing folder has no tools. */
export async function toolFilesIn(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((n) => n.endsWith('.toml')).sort().map((n) => join(dir, n));
}

export async function readToolFile(path: string): Promise<ToolFileResult> {
  const absolute = resolve(path);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    return { ok: false, path: absolute, errors: [`${absolute}: cannot read: ${(error as Error).message}`] };
  }
  return parseToolFile(text, absolute, dirname(absolute));
}

/** Reads the given tool files; a bad file is reported and left out, the rest load. */
export async function loadToolFiles(paths: readonly string[]): Promise<ToolSet> {
  const results = await Promise.all(paths.map(readToolFile));
  const set: ToolSet = { tools: [], errors: [] };
  const seen = new Map<string, string>();
  for (const result of results) {
    if (!result.ok) {
      set.errors.push(...result.errors);
      continue;
    }
    const clash = seen.get(result.tool.name);
    if (clash) {
      set.errors.push(`${result.tool.path}: a tool named ${result.tool.name} is already defined by ${clash}`);
      continue;
    }
    seen.set(result.tool.name, result.tool.path);
    set.tools.push(result.tool);
  }
  return set;
}

export async function loadToolDir(dir: string): Promise<ToolSet> {
  return loadToolFiles(await toolFilesIn(dir));
}
