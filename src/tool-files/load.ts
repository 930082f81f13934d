import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { MAX_DESCRIPTION_CHARS, MAX_TOOL_FILE_BYTES, parseToolFile, type ToolDefinition, type ToolFileResult } from './definition.js';
import { decodeUtf8 } from '../config/index.js';
import { AppError } from '../errors/index.js';

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
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw new AppError('TOOLS_FOLDER_UNREADABLE', `${dir}: cannot list the tool files: ${code === 'ENOTDIR' ? 'it is not a folder' : (error as Error).message}`, { cause: error });
  }
  return names.filter((n) => n.endsWith('.toml')).sort().map((n) => join(dir, n));
}

export async function readToolFile(path: string): Promise<ToolFileResult> {
  const absolute = resolve(path);
  let bytes: Buffer;
  try {
    // The size first: a huge file is refused without being read.
    const { size } = await stat(absolute);
    if (size > MAX_TOOL_FILE_BYTES) return { ok: false, path: absolute, errors: [tooBig(absolute, size)] };
    bytes = await readFile(absolute);
  } catch (error) {
    return { ok: false, path: absolute, errors: [`${absolute}: cannot read: ${(error as Error).message}`] };
  }
  if (bytes.length > MAX_TOOL_FILE_BYTES) return { ok: false, path: absolute, errors: [tooBig(absolute, bytes.length)] };
  const text = decodeUtf8(bytes, absolute);
  if (!text.ok) return { ok: false, path: absolute, errors: [text.error] };
  return parseToolFile(text.text, absolute, dirname(absolute));
}

function tooBig(path: string, size: number): string {
  return `${path}: ${size} bytes; a tool file may be at most ${MAX_TOOL_FILE_BYTES} bytes (${MAX_DESCRIPTION_CHARS} characters of description)`;
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
