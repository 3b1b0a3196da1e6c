/** Conflicts of a content import (and so of content sync): the per-entry choices and what a conflict warning carries. */
import { z } from 'zod';
import type { conflictDetailSchema } from '../data-ops/public.js';

/** Per-conflict choices: `<collection>/<syncId>` -> `source` (the package's version) or `target` (the version here). */
export const conflictResolutionsSchema = z
  .record(
    z
      .string()
      .min(3)
      .max(110)
      .regex(/^[^/]{1,64}\/[^/]{1,40}$/, '<collection>/<syncId>'),
    z.enum(['source', 'target']),
  )
  .refine((m) => Object.keys(m).length <= 10_000, 'at most 10000 resolutions');

/** The two sides of a conflict, for people choosing one: a title, the fields that differ, the update times. */
export type ConflictDetail = z.output<typeof conflictDetailSchema>;
