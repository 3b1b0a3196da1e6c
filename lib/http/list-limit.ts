import { z } from 'zod';

/**
 * The page size of a list query (collection entries, users, media): 25 by default, and a larger one than
 * 100 is capped, not refused. Query strings are text, so the value is coerced.
 */
export const listLimit = () =>
  z.coerce
    .number()
    .int()
    .min(1)
    .default(25)
    .transform((n) => Math.min(n, 100));
