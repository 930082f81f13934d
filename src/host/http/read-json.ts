import type { Context } from 'hono';
import { AppError } from '../../errors/index.js';
import { isPlainTable } from '../../config/index.js';

/** The request body as a JSON object, or a BAD_JSON / BAD_REQUEST error that says what is wrong. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    throw new AppError('BAD_JSON', 'the request body is not valid JSON');
  }
  if (!isPlainTable(body)) throw new AppError('BAD_REQUEST', 'the request body must be a JSON object');
  return body;
}
