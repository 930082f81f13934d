import { AppError } from '../../src/errors/index.js';

/** The stable codes a shell.readonly error result carries; callers branch on these. */
export type ShellErrorCode =
  | 'SHELL_ARGUMENTS_INVALID'
  | 'SHELL_COMMAND_REFUSED'
  | 'SHELL_PATH_OUTSIDE'
  | 'SHELL_TIMEOUT'
  | 'SHELL_FAILED';

/** Extra fields of an error result: exit code, stderr's last lines, partial stdout. */
export type ShellErrorDetails = Record<string, string | number>;

export class ShellError extends AppError {
  override readonly code: ShellErrorCode;
  readonly details: ShellErrorDetails;

  constructor(code: ShellErrorCode, message: string, details: ShellErrorDetails = {}) {
    super(code, message);
    this.code = code;
    this.details = details;
  }
}

export const refused = (message: string): ShellError => new ShellError('SHELL_COMMAND_REFUSED', message);
export const invalid = (message: string): ShellError => new ShellError('SHELL_ARGUMENTS_INVALID', message);

/** The result text of an error: `{"error":{"code":...,"message":...}}`, one line. */
export function errorText(error: ShellError): string {
  return JSON.stringify({ error: { code: error.code, message: error.message, ...error.details } });
}

/** How an argument is named in messages: `argv[3] "-delete"`, quoted as JSON so odd characters show. */
export function argName(index: number, value: string): string {
  const shown = value.length > 80 ? `${value.slice(0, 80)}...` : value;
  return `argv[${index}] ${JSON.stringify(shown)}`;
}
