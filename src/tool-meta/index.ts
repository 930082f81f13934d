/**
 * The `_meta` keys the project's own servers and the router share. Read only
 * from built-in servers: a third-party server's `_meta` is never trusted.
 */

/** The tool's risk, `read` | `write` | `high`, as its server declares it. */
export const META_RISK = 'desktop-assistant/risk';
/** Phrases to say while the tool runs, by language. */
export const META_ANNOUNCE = 'desktop-assistant/announce';
/** The tool's own time limit, after which its server answers first. */
export const META_TIMEOUT_MS = 'desktop-assistant/timeoutMs';
/** The name of the argument whose text is checked for sensitive content (credentials, card numbers, ...). */
export const META_SENSITIVE_ARGUMENT = 'desktop-assistant/sensitiveArgument';
/**
 * True: where the policy for the tool's risk is `confirm`, the call is
 * allowed without asking unless its sensitive argument holds sensitive
 * content (a memory the user asked to keep).
 */
export const META_ALLOW_UNLESS_SENSITIVE = 'desktop-assistant/allowUnlessSensitive';
/** In a call's `_meta`, from the router only: the user confirmed storing the sensitive content. */
export const META_USER_CONFIRMED_SENSITIVE = 'desktop-assistant/userConfirmedSensitive';
/** In the facade's tool list: the server the tool comes from. */
export const META_SERVER = 'desktop-assistant/server';
/** In a call's `_meta` to a built-in server, from the router: the turn the call belongs to. */
export const META_TURN_ID = 'desktop-assistant/turnId';
/**
 * The `logger` of a built-in server's `notifications/message` that reports
 * long work (the memory's re-embedding and index build); its `data` is
 * `{ task, done, total, ratePerS, remainingS }`. The hub turns it into a
 * `progress` event.
 */
export const LOGGER_PROGRESS = 'desktop-assistant/progress';

/** The `data` of a LOGGER_PROGRESS message: records done of total, the rate, seconds left (null: not known yet). */
export interface ProgressData {
  task: string;
  done: number;
  total: number;
  ratePerS: number;
  remainingS: number | null;
}
