/**
 * The project's N-API addons (native/<name>, built by the set-up with
 * node-gyp): where each one is built, and loading it with an error that
 * names what is wrong and the fix.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { AppError, messageOf, type ErrorCode } from '../errors/index.js';
import { PACKAGE_ROOT } from '../package-root.js';

/** native/<folder>/build/Release/<file> in this checkout or package. */
export function nativeAddonPath(folder: string, file: string): string {
  return join(PACKAGE_ROOT, 'native', folder, 'build', 'Release', file);
}

export interface NativeAddonSpec<T> {
  /** What the addon is, for messages: "the echo-cancellation addon". */
  what: string;
  /** The error code every failure carries. */
  code: ErrorCode;
  /** How to get it built: "run `bash scripts/setup.sh` (...)". */
  fix: string;
  /** Why the loaded module is not this addon (a missing export), or undefined when it is. */
  notIt: (module: Partial<T> | null) => string | undefined;
}

const loaded = new Map<string, unknown>();

/** Loads the addon at `path` once; throws `spec.code` naming the path and the fix when it is missing or not the addon. */
export function loadNativeAddon<T>(path: string, spec: NativeAddonSpec<T>): T {
  const cached = loaded.get(path);
  if (cached) return cached as T;
  const { what, code, fix } = spec;
  if (!existsSync(path)) throw new AppError(code, `${what} is not built (${path}): ${fix}`);
  let module: unknown;
  try {
    module = createRequire(import.meta.url)(path);
  } catch (error) {
    throw new AppError(code, `${what} ${path} does not load (${messageOf(error)}): ${fix}`, { cause: error });
  }
  const reason = spec.notIt(module as Partial<T> | null);
  if (reason !== undefined) throw new AppError(code, `${path} is not ${what} (${reason}): ${fix}`);
  loaded.set(path, module);
  return module as T;
}
