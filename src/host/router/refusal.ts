/**
 * The text a model reads when the router refuses or a call fails: one JSON
 * object with a stable code, so a model (or a client) can tell cases apart.
 */
export function refusal(code: string, message: string, details?: unknown): string {
  return JSON.stringify({ error: { code, message, ...(details === undefined ? {} : { details }) } });
}
