import { z } from 'zod';

/** `limit` of a dashboard list: a default, and a value above max capped to max (not refused). */
export const cappedLimit = (def: number, max: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .default(def)
    .transform((n) => Math.min(n, max))
    .describe(`default ${def}, values above ${max} are capped to ${max}`);
