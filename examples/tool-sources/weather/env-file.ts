import { readFile } from 'node:fs/promises';

/**
 * A shell-style env file: `NAME=value` lines, optional `export`, quotes
 * and `#` comments. It is read, never executed.
 */
export async function readEnvFile(path: string): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const rawLine of (await readFile(path, 'utf8')).split('\n')) {
    const line = rawLine.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    values[match[1]!] = unquote(match[2]!);
  }
  return values;
}

function unquote(value: string): string {
  // A comment may follow a quoted value (`KEY="abc" # note`); matching only a
  // whole-line quote kept the quotes in the value and sent them as the key.
  const quoted = /^(["'])(.*?)\1(?:\s+#.*)?$/.exec(value);
  if (quoted) return quoted[2]!;
  return value.replace(/\s+#.*$/, '');
}
