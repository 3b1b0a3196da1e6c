/** Conflicts of a content import (and so of content sync): the per-entry choices and what a conflict warning carries. */
import { z } from 'zod';

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
export interface ConflictDetail {
  collection: string;
  syncId: string;
  /** The version on the instance that plans (the import's target). */
  target: { title: string; updatedAt: string | null };
  /** The package's version (the sending instance). */
  source: { title: string; updatedAt: string | null };
  /** Names of the fields (and `slug`, `status`) whose values differ between the two sides. */
  changedFields: string[];
  resolution: 'source' | 'target';
}
