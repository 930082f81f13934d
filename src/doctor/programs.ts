import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The program's path when it is on PATH (or given with a slash) and executable. */
export function findProgram(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = name.includes('/') ? [name] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return existsSync(path);
    } catch {
      return false;
    }
  });
}
