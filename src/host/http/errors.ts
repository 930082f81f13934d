import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { randomUUID } from 'node:crypto';
import { isAppError, messageOf, type ErrorCode } from '../../errors/index.js';
import { logEvent } from '../../log/index.js';

/** The one place where an error code becomes an HTTP status. */
const STATUS_BY_CODE: Partial<Record<ErrorCode, ContentfulStatusCode>> = {
  UNAUTHORIZED: 401,
  FORBIDDEN_HOST: 403,
  FORBIDDEN_ORIGIN: 403,
  NOT_FOUND: 404,
  TOOL_UNKNOWN: 404,
  CONFIRMATION_UNKNOWN: 404,
  BAD_JSON: 400,
  BAD_REQUEST: 400,
  TURN_IN_PROGRESS: 409,
  VOICE_BUSY: 409,
  VOICE_DISABLED: 409,
  // The voice is there but a sound device is not, for now: it comes back by itself.
  VOICE_DEVICE_LOST: 503,
  BODY_TOO_LARGE: 413,
  LLM_UNREACHABLE: 502,
  LLM_HTTP_ERROR: 502,
  STATE_DB_BUSY: 503,
};

export function statusOf(code: ErrorCode): ContentfulStatusCode {
  return STATUS_BY_CODE[code] ?? 500;
}

export function errorResponse(c: Context, code: ErrorCode, message: string): Response {
  return c.json({ error: { code, message } }, statusOf(code));
}

/**
 * For app.onError: AppErrors keep their code and message (written for the user); anything
 * else is a 500 without internals: its message and stack go to the log under an id, and
 * the client gets only that id to quote.
 */
export function handleError(error: unknown, c: Context): Response {
  if (isAppError(error)) return errorResponse(c, error.code, error.message);
  const id = randomUUID().slice(0, 8);
  logEvent('error', 'http_internal_error', { id, method: c.req.method, path: c.req.path, message: messageOf(error), stack: error instanceof Error ? error.stack : undefined });
  return errorResponse(c, 'INTERNAL', `internal error (logged as ${id})`);
}
