import { isAppError } from '../../src/errors/index.js';

/** Everything an async iterable yields, in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * The AppError that `work` fails with (a promise, or a function run now), as
 * its code and message, and whether it is retryable when asked; fails the
 * test when `work` succeeds or throws something else.
 */
export async function failure(work: Promise<unknown> | (() => unknown)): Promise<{ code: string; message: string }> {
  const { code, message } = await failureWithRetry(work);
  return { code, message };
}

export async function failureWithRetry(work: Promise<unknown> | (() => unknown)): Promise<{ code: string; message: string; retryable: boolean }> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message, retryable: error.retryable };
    throw error;
  }
  throw new Error('expected a failure');
}
