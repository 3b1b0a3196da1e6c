/**
 * plan() of the content-import domain, in steps: schemas (plan-schemas.ts), identities (pass 1 over the
 * package, so memory holds per entry only its identity, matched to the target: plan-identities.ts),
 * media (by SHA-256, import-media.ts) and staging (pass 2: values in target form, plan-values.ts, and a
 * decision per entry written to staging files: plan-staging.ts). The plan itself carries one small
 * operation per collection, action and chunk of at most 500 entities.
 */
import type { SafetyMode } from '../data-ops/public.js';
import type { DataOperation, DomainContext, PlanDraft } from '../data-ops/public.js';
import { mediaPlan } from './import-media.js';
import type { ImportPayload } from './import-staging.js';
import { newIdsOfPlan } from './new-ids.js';
import { planIdentities } from './plan-identities.js';
import { Notes } from './plan-notes.js';
import type { ComponentDefinition } from '../content/public.js';
import { planComponents } from './plan-components.js';
import { planSchemas } from './plan-schemas.js';
import { ImportStager } from './plan-staging.js';
import type { ImportInput, PlanDeps, PlanScope } from './plan-types.js';
import { RefResolver } from './plan-values.js';

export { importInputSchema, type ImportInput, type PlanDeps } from './plan-types.js';

type Draft = Omit<PlanDraft, 'targetHash'>;

const draftOf = (notes: Notes, operations: Array<DataOperation<ImportPayload>>): Draft => {
  notes.close();
  return { operations, warnings: notes.warnings, blockedReasons: notes.blocked };
};

export async function planImport(d: PlanDeps, input: ImportInput, mode: SafetyMode, ctx: DomainContext): Promise<Draft> {
  const notes = new Notes();
  const { meta, dir, root } = await d.uploads.load(input.uploadId, ctx.tenantId);
  const m = meta.manifest;
  if (!meta.valid || !m) {
    return { operations: [], warnings: [], blockedReasons: [`The package is not valid: ${meta.problems.slice(0, 10).join('; ')}`] };
  }
  const s: PlanScope = {
    d,
    input,
    mode,
    tenantId: ctx.tenantId,
    identity: ctx.identity,
    notes,
    m,
    root,
    dir,
    peer: m.source.installationId,
  };
  const components = d.components?.definitions() ?? new Map<string, ComponentDefinition>();
  if (s.m.components && !d.components) notes.block('the package holds components but the content plugin has none here');
  const planned = await planComponents(s, components);
  if (notes.blocked.length) return draftOf(notes, planned.operations);
  const { schemas, operations: schemaOps } = await planSchemas(s, planned.definitions);
  const operations = [...planned.operations, ...schemaOps];
  if (notes.blocked.length) return draftOf(notes, operations);
  const ids = await planIdentities(s, schemas);
  if (notes.blocked.length) return draftOf(notes, operations);
  // New entries get their ids now, so references to them resolve in the plan: derived from the entry's
  // key and a secret of this plan (as unique as random ids, and no map of 100,000 ids to hold).
  const refs = new RefResolver(ids.decisions, ids.indexes, schemas, s.tenantId, newIdsOfPlan());
  // Media: by SHA-256 against this tenant's media records; missing ones with their file in the package are carried over.
  const media = await mediaPlan(d.sequelize, root, m, s.tenantId, notes);
  const stager = new ImportStager(s, schemas, ids, media, refs);
  await stager.open();
  await stager.stageAll();
  await stager.finish(operations);
  return draftOf(notes, operations);
}
