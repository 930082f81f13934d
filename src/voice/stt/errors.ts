import { AppError } from '../../errors/index.js';

/** The codes an `Stt` (and the whisper-server it may start) fails with; callers branch on these. */
export const STT_CANCELLED = 'STT_CANCELLED';
export const STT_TIMEOUT = 'STT_TIMEOUT';
/** A model file or folder named in the options does not exist. */
export const STT_MODEL_MISSING = 'STT_MODEL_MISSING';
/** The recognizer program could not start, or failed. */
export const STT_ENGINE_FAILED = 'STT_ENGINE_FAILED';
export const STT_UNREACHABLE = 'STT_UNREACHABLE';
export const STT_HTTP_ERROR = 'STT_HTTP_ERROR';
/** The server answered 2xx with something that is not the expected JSON. */
export const STT_BAD_RESPONSE = 'STT_BAD_RESPONSE';
export const STT_SERVER_START_FAILED = 'STT_SERVER_START_FAILED';
/** Something already answers on the port a server was to be started on. */
export const STT_PORT_BUSY = 'STT_PORT_BUSY';
export const STT_BAD_OPTIONS = 'STT_BAD_OPTIONS';

export function sttCancelled(what: string, reason?: unknown): AppError {
  return new AppError(STT_CANCELLED, `${what} was cancelled`, { cause: reason });
}

export function requirePositiveMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new AppError(STT_BAD_OPTIONS, `${name} must be a positive number of ms, not ${value}`);
  }
  return value;
}

/** The last line of a program's stderr that looks like an error, else its last line. */
export function lastErrorLine(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const errors = lines.filter((line) => /^(ERROR|FATAL)\b|\berror\b/i.test(line));
  return (errors.at(-1) ?? lines.at(-1) ?? '').slice(0, 300);
}
