import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dataDir } from '../../config/index.js';
import { AppError } from '../../errors/index.js';

const TOKEN_FILE = 'api-token';

/**
 * Where the API token lives: the runtime folder (`$XDG_RUNTIME_DIR`, private
 * to the user and gone at logout) when there is one, else the data folder.
 */
export function tokenPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'desktop-assistant', TOKEN_FILE);
  return join(dataDir(env), TOKEN_FILE);
}

/** Reads the token, creating it (readable by the user only) at first start. */
export function loadOrCreateToken(path: string): string {
  const existing = readToken(path);
  if (existing) return existing;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return token;
}

/** The token, or undefined when none was made yet. A file others can read is refused. */
export function readToken(path: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) !== 0) {
    // Tighten rather than refuse: the file is ours, its mode was loosened by hand.
    chmodSync(path, 0o600);
  }
  const token = readFileSync(path, 'utf8').trim();
  if (token.length < 32) throw new AppError('HTTP_TOKEN_INVALID', `the API token in ${path} is too short: delete the file and restart to make a new one`);
  return token;
}
