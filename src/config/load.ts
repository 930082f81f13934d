import { join } from 'node:path';
import { AppError } from '../errors/index.js';
import { describeIssues } from './describe-issues.js';
import { configSchema, type Config } from './schema.js';
import { readTomlFile } from './toml-file.js';

export const CONFIG_FILE = 'config.toml';

export type ConfigResult = { ok: true; config: Config; path: string; found: boolean } | { ok: false; errors: string[]; path: string };

/**
 * Reads `config.toml` from the config folder and merges it over the
 * built-in defaults. A missing folder or file is valid and gives the
 * defaults; every problem in the file is reported, not just the first.
 */
export async function readConfig(dir: string): Promise<ConfigResult> {
  const path = join(dir, CONFIG_FILE);
  const read = await readTomlFile(path);
  if (!read.ok) {
    if (read.missing) return { ok: true, config: configSchema.parse({}), path, found: false };
    return { ok: false, errors: [`config: ${read.error}`], path };
  }
  return validateConfig(read.value, path);
}

export function validateConfig(raw: unknown, path = CONFIG_FILE): ConfigResult {
  const parsed = configSchema.safeParse(raw, { reportInput: true });
  if (parsed.success) return { ok: true, config: parsed.data, path, found: true };
  return { ok: false, errors: describeIssues(parsed.error.issues).map((e) => `config: ${e}`), path };
}

/** Like readConfig, but a bad file is an AppError listing every problem. */
export async function loadConfig(dir: string): Promise<Config> {
  const result = await readConfig(dir);
  if (result.ok) return result.config;
  throw new AppError('CONFIG_INVALID', result.errors.join('\n'));
}
