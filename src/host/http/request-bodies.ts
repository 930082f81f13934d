import { z } from 'zod';

/** POST /turns: the question, and whether to answer as Server-Sent Events. */
export const turnRequest = z.object(
  {
    text: z.string({ error: 'a non-empty string is needed' }).trim().min(1, { error: 'a non-empty string is needed' }),
    stream: z.boolean().optional(),
  },
  { error: 'a JSON object is needed' },
);

/** POST /confirmations/:id: the answer to a held tool call. */
export const confirmationAnswer = z.object(
  {
    approve: z.boolean({ error: 'true or false is needed' }),
  },
  { error: 'a JSON object is needed' },
);
