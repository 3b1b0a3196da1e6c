/**
 * The `content-import` data-operation domain (audit domain `content-package`): modes add, merge
 * (default), mirror; transactional; a job at or above 500 entities. validate -> the upload exists in
 * the tenant; plan -> import-plan.ts; apply, verify, snapshot -> import-apply.ts.
 */
import { parseInput, type DataDomainDefinition } from '../data-ops/public.js';
import { importApply, type ApplyDeps } from './import-apply.js';
import { importInputSchema, planImport, type ImportInput } from './import-plan.js';
import type { ContentLedger } from './ledger.js';
import { IMPORT_DOMAIN } from './public.js';

export const IMPORT_INLINE_THRESHOLD = 500;

export function importDomain(d: ApplyDeps & { ledger: () => ContentLedger; maxEntries: number }): DataDomainDefinition<ImportInput> {
  const applier = importApply(d);
  return {
    id: IMPORT_DOMAIN,
    auditDomain: 'content-package',
    modes: ['add', 'merge', 'mirror'],
    defaultMode: 'merge',
    inlineThreshold: IMPORT_INLINE_THRESHOLD,
    transactional: true,

    async validate(input, ctx) {
      const parsed = parseInput(importInputSchema, input ?? {}, 'Invalid content import plan request');
      await d.uploads.load(parsed.uploadId, ctx.tenantId);
      return parsed;
    },

    snapshot: (input, ctx) => applier.snapshot(input, ctx),

    async plan(input, mode, ctx) {
      const draft = await planImport(
        {
          uploads: d.uploads,
          sequelize: d.sequelize(),
          collections: d.collections(),
          components: d.components(),
          entries: d.entries(),
          ledger: d.ledger(),
          maxEntries: d.maxEntries,
        },
        input,
        mode,
        ctx,
      );
      return { ...draft, targetHash: await applier.snapshot(input, ctx) };
    },

    apply: (operation, ctx) => applier.apply(operation, ctx),
    verify: (plan, ctx) => applier.verify(plan, ctx),
  };
}
