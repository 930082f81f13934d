import { AppError, isAppError } from '../../src/errors/index.js';

/** The stable codes a shell.readonly error result carries; callers branch on these. */
export type ShellErrorCode =
  | 'SHELL_ARGUMENTS_INVALID'
  | 'SHELL_COMMAND_REFUSED'
  | 'SHELL_PATH_OUTSIDE'
  | 'SHELL_TIMEOUT'
  | 'SHELL_FAILED';

/** Extra fields of an error result: exit code, stderr's last lines, partial stdout. */
export type ShellErrorDetails = Record<string, string | number>;

/** A shell.readonly error: the project's one error class, with the server's code and details. */
export function shellError(code: ShellErrorCode, message: string, details: ShellErrorDetails = {}): AppError {
  return new AppError(code, message, { details });
}

/** One of this server's errors (any other is turned into SHELL_FAILED). */
export function isShellError(value: unknown, code?: ShellErrorCode): value is AppError {
  return isAppError(value) && value.code.startsWith('SHELL_') && (code === undefined || value.code === code);
}

export const refused = (message: string): AppError => shellError('SHELL_COMMAND_REFUSED', message);
export const invalid = (message: string): AppError => shellError('SHELL_ARGUMENTS_INVALID', message);

/** The result text of an error: `{"error":{"code":...,"message":...}}`, one line. */
export function errorText(error: AppError): string {
  return JSON.stringify({ error: { code: error.code, message: error.message, ...error.details } });
}

/** How an argument is named in messages: `argv[3] "-delete"`, quoted as JSON so odd characters show. */
export function argName(index: number, value: string): string {
  const shown = value.length > 80 ? `${value.slice(0, 80)}...` : value;
  return `argv[${index}] ${JSON.stringify(shown)}`;
}
