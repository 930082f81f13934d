/** When and how often a crashed server is started again. */
export interface RestartPolicy {
  /** The wait before the first restart; it doubles with each consecutive failure. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A server that stayed up this long has its failure count (and so its delay) reset. */
  stableAfterMs: number;
  /** Consecutive failures (crashes and failed restarts) after which the server is left `failed`. */
  maxConsecutiveFailures: number;
}

/**
 * 0.5 s, 1 s, then every 2 s for about a minute and a half (45 tries): a server that can start
 * again (its program back, its disk freed) is running within about 2 s of that, never left
 * waiting 30 s as a doubling to 30 s did (issue 25: back within 3 s of the dependency returning).
 * A try is one process started and stopped: every 2 s costs nothing a desktop notices.
 */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 2_000,
  stableAfterMs: 60_000,
  maxConsecutiveFailures: 45,
};

/** The wait before the restart that follows the `failures`-th consecutive failure (1-based). */
export function restartDelayMs(failures: number, policy: RestartPolicy): number {
  const exponent = Math.max(0, failures - 1);
  // Capped before multiplying, so a long streak cannot overflow to Infinity.
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(exponent, 30));
}
