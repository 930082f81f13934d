import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';
import { headingAnchors, relativeLinks } from './markdown-links.js';

const PAGES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

function brokenLinks(page: string): string[] {
  const file = join(REPO_ROOT, page);
  return relativeLinks(readFileSync(file, 'utf8')).flatMap((link) => {
    const target = link.target === '' ? file : join(dirname(file), link.target);
    const where = `${page}:${link.line} -> ${link.target}${link.anchor === undefined ? '' : `#${link.anchor}`}`;
    if (!existsSync(target)) return [`${where} (no such file)`];
    if (link.anchor === undefined || !target.endsWith('.md')) return [];
    return headingAnchors(readFileSync(target, 'utf8')).has(link.anchor) ? [] : [`${where} (no such heading in ${relative(REPO_ROOT, target)})`];
  });
}

describe('links between README.md and docs/', () => {
  it('point at files and headings that exist', () => {
    expect(PAGES.flatMap(brokenLinks)).toEqual([]);
  });

  it('reads anchors the way GitHub makes them', () => {
    const anchors = headingAnchors('## `[router]`: the Tool Router\n## 2. A spoken turn\n```\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['router-the-tool-router', '2-a-spoken-turn']);
  });

  it('links README to every docs page', () => {
    const linked = new Set(relativeLinks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).map((link) => link.target));
    expect(PAGES.filter((page) => page.startsWith('docs/') && !linked.has(page))).toEqual([]);
  });
});
