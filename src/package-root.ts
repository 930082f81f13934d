import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface PackageJson {
  name?: string;
  version?: string;
}

/**
 * The package's root folder, found by walking up from this module: src/
 * under the test runner, dist/src/ once compiled. Files that ship with the
 * package (the web page, the compiled servers) are found from here.
 */
function findRoot(): { root: string; pkg: PackageJson } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
      if (pkg.name === 'desktop-assistant') return { root: dir, pkg };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no desktop-assistant package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

const found = findRoot();

export const PACKAGE_ROOT = found.root;
export const PACKAGE_VERSION = found.pkg.version ?? '0.0.0';
