import { z } from 'zod';

/** Zod schemas of the shared wire shapes, for domain routes (request bodies and OpenAPI answers). */
export const summarySchema = z.object({
  created: z.number(),
  updated: z.number(),
  deleted: z.number(),
  skipped: z.number(),
  failed: z.number(),
});
/** The two sides of a content conflict, for people choosing one (content imports and syncs: content-packages/conflicts.ts). */
export const conflictDetailSchema = z.object({
  collection: z.string(),
  syncId: z.string(),
  /** The version on the instance that plans (the import's target). */
  target: z.object({ title: z.string(), updatedAt: z.string().nullable() }),
  /** The package's version (the sending instance). */
  source: z.object({ title: z.string(), updatedAt: z.string().nullable() }),
  /** Names of the fields (and `slug`, `status`) whose values differ between the two sides. */
  changedFields: z.array(z.string()),
  resolution: z.enum(['source', 'target']),
});
export const planViewSchema = z.object({
  planId: z.string(),
  planHash: z.string(),
  domain: z.string(),
  mode: z.enum(['add', 'merge', 'mirror', 'replace']),
  risk: z.enum(['safe', 'warning', 'destructive']),
  requiresConfirmation: z.boolean(),
  summary: summarySchema,
  operations: z.array(
    z.object({
      action: z.string(),
      type: z.string(),
      target: z.string(),
      count: z.number(),
      changes: z
        .record(z.string(), z.object({ added: z.array(z.unknown()), removed: z.array(z.unknown()) }))
        .optional()
        .describe("What the operation adds and removes, per aspect (configuration promotion: a role's permissions and rules)"),
    }),
  ),
  warnings: z.array(
    z.object({
      message: z.string(),
      item: z.string().optional(),
      conflict: conflictDetailSchema
        .optional()
        .describe(
          "Content imports and syncs: an entry changed on both sides since the last agreed version. target: the planning instance's version, source: the package's (the sending instance's); the fields that differ; resolution: the side this plan takes",
        ),
    }),
  ),
  blockedReasons: z.array(z.string()),
  expiresAt: z.string(),
});
export const applyBodySchema = z.object({
  planId: z.string().min(1).max(64),
  confirmed: z.boolean().optional(),
  planHash: z.string().max(128).optional(),
});
export const applyAnswerSchema = z.union([
  z.object({
    planId: z.string(),
    outcome: z.enum(['success', 'partial', 'failure', 'rollback']),
    summary: summarySchema,
    durationMs: z.number(),
    verify: z.object({ ok: z.boolean(), discrepancies: z.array(z.string()) }).optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  z.object({ jobId: z.string(), status: z.literal('queued') }),
]);
export const jobsAnswerSchema = z.object({
  jobs: z.array(
    z.object({
      jobId: z.string(),
      domain: z.string(),
      status: z.string(),
      progress: z.object({ processed: z.number(), total: z.number() }),
      outcome: z.enum(['success', 'partial', 'failure', 'rollback']).optional(),
      summary: summarySchema.optional(),
      createdAt: z.string(),
      completedAt: z.string().optional(),
    }),
  ),
});
/** A history route's answer: the jobs shape, plus applies done inline (jobId null, inline true) and each apply's plan. */
export const historyAnswerSchema = z.object({
  jobs: z.array(
    jobsAnswerSchema.shape.jobs.element.extend({
      jobId: z.string().nullable(),
      planId: z.string().nullable(),
      mode: z.enum(['add', 'merge', 'mirror', 'replace']).nullable(),
      inline: z.boolean(),
    }),
  ),
});
