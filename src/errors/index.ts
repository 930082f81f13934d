/**
 * The one error class of the project. Callers branch on `code`, never on the
 * message text; the HTTP layer is the only place a code becomes a status.
 */
import type { ErrorCode } from './codes.js';

export { ERROR_CODES, isErrorCode, type ErrorCode } from './codes.js';

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** Facts a caller may show with the message (an exit code, the end of stderr); never secrets. */
  readonly details: Readonly<Record<string, string | number>>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; retryable?: boolean; details?: Record<string, string | number> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
}

export function isAppError(value: unknown, code?: ErrorCode): value is AppError {
  return value instanceof AppError && (code === undefined || value.code === code);
}

/** The message of anything thrown, for places that must turn it into text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
