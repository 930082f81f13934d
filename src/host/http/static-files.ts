import { readFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The page's files: served from the package, never from a CDN. */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
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

/** Reads the page's files once; a name outside the list is not served. */
export function loadStaticFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const [name, type] of Object.entries(FILES)) {
    try {
      files.set(name, { body: readFileSync(join(dir, name), 'utf8'), type });
    } catch {
      // A missing file answers 404; the API works without the page.
    }
  }
  return files;
}
