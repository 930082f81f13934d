/**
 * The key tables of a markdown page: tables whose first header cell is
 * `key`. Each row's first cell holds one key in backticks, its second the
 * default.
 */
export type KeyRow = { key: string; defaultCell: string; line: number };

function cells(line: string): string[] {
  // A `\|` inside a cell is a literal bar, not a column break.
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

export function keyRows(markdown: string): KeyRow[] {
  const rows: KeyRow[] = [];
  let inKeyTable = false;
  markdown.split('\n').forEach((line, index) => {
    if (!line.trim().startsWith('|')) {
      inKeyTable = false;
      return;
    }
    const [first = '', second = ''] = cells(line);
    if (first === 'key') {
      inKeyTable = true;
      return;
    }
    if (!inKeyTable || /^-+$/.test(first.replace(/:/g, ''))) return;
    const match = /^`([^`]+)`$/.exec(first);
    rows.push({ key: match ? match[1]! : first, defaultCell: second, line: index + 1 });
  });
  return rows;
}
