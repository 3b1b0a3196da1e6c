/**
 * The `importer` data domain: external imports on the data-operation lifecycle (plugin data-ops).
 *
 * - validate: the upload (the caller's, valid, its files present), the format, scaffold permission and
 *   mapping names; assigns the import job id the plan's one run gets.
 * - snapshot: a hash of the target collections' fields (or absence) and the ledger's record counts of the
 *   format in them; a run that has begun answers the plan's own hash (a resumed job is not stale).
 * - plan: `create import <format>` (count 0, the run itself, carrying the importer's plan), `create
 *   collection` per scaffolded collection (count 0), then per source entity `create entry` / `skip entry`
 *   with its record count (the inline threshold counts these). Unmapped entities are warnings.
 * - apply: runs the import job in batches (not transactional: one transaction per batch, never one for the
 *   whole import), resumable after an interruption; per-record outcomes are reported (partial when records
 *   failed). A run that fails as a whole removes the entries it created and its empty scaffolded collections.
 * - verify: the job completed and went through every record.
 */
import { z } from 'zod';
import { ValidationError } from '../../kernel/sdk.js';
import { zodIssueDetails, type DataDomainDefinition } from '../data-ops/public.js';
import type { ImportersService, ImportInput } from './importers-service.js';
import { IMPORTER_DOMAIN } from './import-context.js';
import type { SafetyMode } from './planner.js';

/** One entity's mapping in a preview body (also the preview route's request schema). */
export const entityMapping = z.union([
  z.string().min(1).max(48),
  z.literal(false),
  z.null(),
  z
    .object({
      collection: z.string().min(1).max(48).optional(),
      fields: z.record(z.string().max(191), z.string().max(48).nullable()).optional(),
      statuses: z
        .enum(['keep', 'draft'])
        .optional()
        .describe("keep the source's statuses, or import this entity's records as drafts (overrides the plan's statuses)"),
    })
    .strict(),
]);

/** One source language in a preview body (plan-locales.ts): an existing locale's code, false to skip it, or a locale to create. */
export const localeMapping = z.union([
  z.string().min(1).max(35),
  z.literal(false),
  z.null(),
  z
    .object({
      target: z.string().min(1).max(35).optional().describe("the locale's code (default: the source's)"),
      create: z.boolean().optional().describe('create the locale when it does not exist (system:settings in the default tenant)'),
    })
    .strict(),
]);
export const localeMappings = z.record(z.string().min(1).max(64), localeMapping);

const inputSchema = z.object({
  format: z.string().min(1).max(64),
  uploadId: z.string().uuid().optional(),
  mappings: z.record(z.string(), entityMapping).optional(),
  locales: localeMappings.optional(),
  scaffold: z.boolean().optional(),
  statuses: z.enum(['keep', 'draft']).optional(),
});

export function importerDomain(service: () => ImportersService, inlineThreshold: number): DataDomainDefinition<ImportInput> {
  return {
    id: IMPORTER_DOMAIN,
    auditDomain: 'importer',
    modes: ['add', 'merge'],
    defaultMode: 'add',
    inlineThreshold,
    transactional: false,
    resumable: true,
    async validate(raw, ctx) {
      const parsed = inputSchema.safeParse(raw);
      if (!parsed.success) {
        const issues = zodIssueDetails(parsed.error.issues);
        throw new ValidationError(`Invalid import plan input: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
      }
      return service().validateInput(ctx.identity, parsed.data);
    },
    snapshot: (input, ctx) => service().snapshotOf(input, ctx.identity),
    plan: (input, mode, ctx) => service().draftFor(input, mode as SafetyMode, ctx.identity),
    apply: (operation, ctx) => service().applyOperation(operation, ctx),
    verify: (plan) => service().verifyRun(plan),
  };
}
