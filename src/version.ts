import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (two folders up from src/ and dist/src/). */
function readVersion(): string {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'desktop-assistant' && pkg.version) return pkg.version;
    } catch {
      // Not at this depth.
    }
  }
  return '0.0.0';
}

export const PACKAGE_VERSION = readVersion();
