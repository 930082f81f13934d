import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

/** The page's files are served from the package, never from a CDN; only these kinds. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** web/ at the package root. */
export function webDir(): string {
  return join(PACKAGE_ROOT, 'web');
}

export interface StaticFile {
  body: string;
  type: string;
}

/**
 * Reads the page's files once, by name: only the top level of the folder
 * and only the kinds above, so a request can never reach anything else.
 */
export function loadStaticFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return files; // No page installed: the API works without it.
  }
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (type) files.set(name, { body: readFileSync(join(dir, name), 'utf8'), type });
  }
  return files;
}
