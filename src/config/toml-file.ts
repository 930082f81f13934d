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
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true };
    return { ok: false, missing: false, error: `${path}: cannot read: ${(error as Error).message}` };
  }
  const text = decodeUtf8(bytes, path);
  if (!text.ok) return { ok: false, missing: false, error: text.error };
  return parseToml(text.text, path);
}

/**
 * A TOML file's text: TOML is UTF-8, and a byte that is not (a file saved
 * as Latin-1: "caf\xe9") is an error naming the byte, its offset and its
 * line, never a silent U+FFFD in a value.
 */
export function decodeUtf8(bytes: Uint8Array, path: string): { ok: true; text: string } | { ok: false; error: string } {
  const bad = firstInvalidUtf8(bytes);
  if (bad < 0) return { ok: true, text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') };
  let line = 1;
  for (let i = 0; i < bad; i++) if (bytes[i] === 0x0a) line++;
  const hex = bytes[bad]!.toString(16).toUpperCase().padStart(2, '0');
  return { ok: false, error: `${path}:${line}: not UTF-8 (TOML files must be): byte 0x${hex} at offset ${bad}; save the file as UTF-8` };
}

/** The offset of the first byte that does not belong to well-formed UTF-8, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // Lead byte: how many continuation bytes follow, and the range the first of them must be in (no overlongs, no surrogates, nothing past U+10FFFF).
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
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
