import { AppError } from '../errors/index.js';
import type { Config } from './schema.js';

export type AssistantMode = Config['mode'];

const MODES: readonly AssistantMode[] = ['turn_based', 'full_duplex_agent'];

/**
 * `mode` from config.toml, unless OWNER_ASSISTANT_MODE names another; an
 * unknown name is an error (a typo must not quietly fall back to turn-based).
 */
export function assistantMode(config: Config, env: NodeJS.ProcessEnv = process.env): AssistantMode {
  const fromEnv = env.OWNER_ASSISTANT_MODE;
  if (fromEnv === undefined || fromEnv === '') return config.mode;
  if ((MODES as readonly string[]).includes(fromEnv)) return fromEnv as AssistantMode;
  throw new AppError('CONFIG_INVALID', `OWNER_ASSISTANT_MODE must be one of ${MODES.join(', ')}, got ${JSON.stringify(fromEnv)}`);
}
