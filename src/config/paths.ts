import { homedir } from 'node:os';
import { join } from 'node:path';

const APP = 'desktop-assistant';

type Env = Record<string, string | undefined>;

/**
 * The config folder: `--config-dir`, else DESKTOP_ASSISTANT_CONFIG_DIR, else
 * `${XDG_CONFIG_HOME:-~/.config}/desktop-assistant`.
 */
export function configDir(explicit?: string, env: Env = process.env): string {
  if (explicit) return explicit;
  if (env.DESKTOP_ASSISTANT_CONFIG_DIR) return env.DESKTOP_ASSISTANT_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), APP);
}

/** Memory, audit and pins: `${XDG_DATA_HOME:-~/.local/share}/desktop-assistant`. */
export function dataDir(env: Env = process.env): string {
  if (env.DESKTOP_ASSISTANT_DATA_DIR) return env.DESKTOP_ASSISTANT_DATA_DIR;
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), APP);
}

/** `~/x` in a config value means the user's home, as in a shell. */
export function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}
