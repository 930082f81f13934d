import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { expandHome } from '../../src/config/index.js';

/**
 * The executable a command names: a path as it is, a bare name searched on
 * PATH the way a shell would, at the time of the call (Open Interpreter may
 * be installed while the server runs). Undefined when there is none.
 */
export async function findCommand(command: string, pathVariable: string | undefined): Promise<string | undefined> {
  if (command.includes('/')) return (await isExecutableFile(command)) ? command : undefined;
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    // An empty PATH entry means the current folder to a shell; not to us.
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, command);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export type WorkingDir =
  | { kind: 'ok'; dir: string }
  | { kind: 'base-missing'; reason: string }
  | { kind: 'refused'; reason: string };

/**
 * The folder a task runs in: the configured one, or the requested one when,
 * after symlinks, it is that folder or inside it. A relative request is read
 * against the configured folder; `~/` means home.
 */
export async function resolveWorkingDir(base: string, requested: string | undefined): Promise<WorkingDir> {
  const realBase = await realDirectory(base);
  if (typeof realBase !== 'string') return { kind: 'base-missing', reason: `the working folder ${base} ${realBase.problem}` };
  if (requested === undefined) return { kind: 'ok', dir: realBase };

  const wanted = resolve(realBase, expandHome(requested));
  const real = await realDirectory(wanted);
  if (typeof real !== 'string') return { kind: 'refused', reason: `${requested} ${real.problem}` };
  const rel = relative(realBase, real);
  const outside = rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  if (!outside) return { kind: 'ok', dir: real };
  return { kind: 'refused', reason: `${requested} resolves to ${real}, outside the working folder ${realBase}` };
}

async function realDirectory(path: string): Promise<string | { problem: string }> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return { problem: 'does not exist' };
  }
  const info = await stat(real).catch(() => undefined);
  return info?.isDirectory() ? real : { problem: 'is not a folder' };
}
