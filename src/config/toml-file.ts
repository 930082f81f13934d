import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';

export type TomlRead =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; missing: true }
  | { ok: false; missing: false; error: string };

/**
 * Reads and parses one TOML file. A syntax error names the file, line and
 * column; a missing file is reported as such, for the caller to decide.
 */
export async function readTomlFile(path: string): Promise<TomlRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true };
    return { ok: false, missing: false, error: `${path}: cannot read: ${(error as Error).message}` };
  }
  return parseToml(text, path);
}

export function parseToml(text: string, path: string): TomlRead {
  try {
    return { ok: true, value: parse(text) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = firstLine(error.message.replace(/^Invalid TOML document: /, ''));
      return { ok: false, missing: false, error: `${path}:${error.line}:${error.column}: invalid TOML: ${reason}` };
    }
    throw error;
  }
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
