import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The page's files are served from the package, never from a CDN; only these kinds. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** web/ at the package root, from dist/src/host/http/ or src/host/http/ (tests). */
export function webDir(): string {
  for (const relative of ['../../../../web', '../../../web']) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return fileURLToPath(new URL('../../../web', import.meta.url));
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
