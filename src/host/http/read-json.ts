import type { Context } from 'hono';
import { z } from 'zod';
import { AppError } from '../../errors/index.js';

/**
 * The request body parsed as JSON and checked against `schema` (one zod schema per body: the
 * check and the TypeScript type in one place), or BAD_JSON / BAD_REQUEST saying what is wrong.
 */
export async function readJsonBody<Schema extends z.ZodType>(c: Context, schema: Schema): Promise<z.infer<Schema>> {
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    throw new AppError('BAD_JSON', 'the request body is not valid JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new AppError('BAD_REQUEST', `the request body is not what ${c.req.method} ${c.req.path} takes: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** `"text": a non-empty string is needed; "stream": expected boolean, received string`. */
function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `"${issue.path.join('.')}": ${issue.message}` : issue.message)).join('; ');
}
