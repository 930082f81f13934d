import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, isAppError, isErrorCode } from '../../src/errors/index.js';

describe('the error codes', () => {
  it('are each listed once, in the same spelling', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$|^[A-Z]+$/);
  });

  it('tell a code that came from outside from one of ours', () => {
    expect(isErrorCode('VOICE_BUSY')).toBe(true);
    expect(isErrorCode('VOICE_BUSSY')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });

  it('are what isAppError matches on', () => {
    const error = new AppError('MEMORY_DB_BUSY', 'locked');
    expect(isAppError(error, 'MEMORY_DB_BUSY')).toBe(true);
    expect(isAppError(error, 'STATE_DB_BUSY')).toBe(false);
  });
});
