/**
 * Relative links of markdown pages and the headings they may point at,
 * with GitHub's anchor rule (lower case, punctuation dropped, spaces to
 * hyphens).
 */
export type PageLink = { target: string; anchor: string | undefined; line: number };

/** Links to other files or anchors of this one; web addresses and mail are left out. */
export function relativeLinks(markdown: string): PageLink[] {
  const links: PageLink[] = [];
  let inCode = false;
  markdown.split('\n').forEach((line, index) => {
    if (line.trimStart().startsWith('```')) inCode = !inCode;
    if (inCode) return;
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = match[1]!;
      if (/^[a-z]+:/.test(href)) continue;
      const [target = '', anchor] = href.split('#');
      links.push({ target, anchor, line: index + 1 });
    }
  });
  return links;
}

export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) inCode = !inCode;
    const heading = !inCode && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    anchors.add(heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
  }
  return anchors;
}
