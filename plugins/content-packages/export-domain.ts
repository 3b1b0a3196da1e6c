/**
 * The `content-export` data domain: mode add only, not transactional (it writes files and reads the
 * entries page by page; no transaction is held), inline below 500 entities (entries + media records),
 * audit domain `content-package`.
 *
 * - validate: export-selection.ts (400 VALIDATION_ERROR, 404 COLLECTION_NOT_FOUND).
 * - snapshot: a hash of the selected collections' schema versions: a schema change between plan and run
 *   is 409 PLAN_STALE; entry changes are not (the run exports the entries as they are then).
 * - plan: per collection `create collection-file <name>` (count: its selected entries), `create
 *   media-manifest media` (count: referenced media records), `create package archive` (count 0;
 *   payload.estimatedBytes); warnings for relation fields pointing outside the selection and for media
 *   fields in use without includeMedia, and for an empty selection.
 * - apply: one PackageWriter per running plan (in this process): the first collection step opens it,
 *   each step writes its files, the package step archives and registers it. Every step's undo discards
 *   the work folder (and the archive once written).
 * - verify: the plan's package is registered and its archive has the registered size.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { LoadedCollection } from '../content/public.js';
import type { DataDomainDefinition, DataOperation, DomainContext, PlanDraft, StoredPlan, Undo, VerifyResult } from '../data-ops/public.js';
import { planExport, type ExportPayload } from './export-plan.js';
import type { ExportPackages } from './export-packages.js';
import { checkSelection } from './export-selection.js';
import { PackageWriter, type WriterDeps } from './package-writer.js';
import { EXPORT_DOMAIN, type ExportSelection } from './public.js';

export const EXPORT_INLINE_THRESHOLD = 500;

type Payload = ExportPayload;

export interface ExportDomainDeps {
  writer: () => WriterDeps;
  packages: () => ExportPackages;
  /** After a package is built (retention). */
  built?: () => Promise<void>;
}

/** Drops the writer of a plan and its work folder. */
async function discardRun(running: Map<string, PackageWriter>, planId: string): Promise<void> {
  const w = running.get(planId);
  running.delete(planId);
  await w?.discard();
}

/**
 * One step of an export run: one PackageWriter per running plan (in this process): the first collection
 * step opens it, each step writes its files, the package step archives and registers it. Every step's
 * undo discards the work folder (and the archive once written).
 */
async function applyExportStep(
  d: ExportDomainDeps,
  running: Map<string, PackageWriter>,
  op: DataOperation,
  ctx: DomainContext & { plan: StoredPlan },
): Promise<Undo | void> {
  const discard = (planId: string) => discardRun(running, planId);
  const p = op.payload as Payload;
  const planId = ctx.plan.planId;
  const undo = () => discard(planId);
  if (p.step === 'collection' && p.first) await discard(planId);
  let w = running.get(planId);
  if (!w) {
    if (!(p.step === 'collection' && p.first)) throw new Error('The export lost its work folder between steps; run the plan again');
    w = await PackageWriter.open(d.writer(), ctx.plan.input as ExportSelection, {
      tenantId: ctx.tenantId,
      createdBy: ctx.actor.userId,
      planId,
      signal: ctx.signal,
    });
    running.set(planId, w);
  }
  let built: Awaited<ReturnType<PackageWriter['finish']>>;
  try {
    if (p.step === 'collection') {
      await w.collection(p.name, (n) => ctx.progress?.(n, op.count ?? n));
      return undo;
    }
    if (p.step === 'media') {
      await w.media((n) => ctx.progress?.(n, op.count ?? n));
      return undo;
    }
    built = await w.finish();
  } catch (err) {
    // A failed step leaves nothing behind (the engine runs only the undos of completed steps).
    await discard(planId).catch((e) => ctx.logger.warn({ err: e, planId }, 'content export: the work folder could not be removed'));
    throw err;
  }
  running.delete(planId);
  await d.built?.().catch(() => undefined);
  return () => d.packages().remove(built.packageId);
}

/** The plan's package is registered and its archive has the registered size. */
async function verifyExport(d: ExportDomainDeps, planId: string, tenantId: string): Promise<VerifyResult> {
  const row = await d.packages().byPlan(tenantId, planId);
  if (!row) return { ok: false, discrepancies: ['no package was registered for this plan'] };
  const s = await stat(d.packages().archivePath(row.packageId)).catch(() => null);
  if (!s) return { ok: false, discrepancies: [`the archive of package ${row.packageId} is missing`] };
  if (s.size !== row.size)
    return { ok: false, discrepancies: [`the archive of package ${row.packageId} has ${s.size} bytes, ${row.size} were written`] };
  return { ok: true, discrepancies: [] };
}

export function exportDomain(d: ExportDomainDeps): DataDomainDefinition<ExportSelection> & { estimateOf(plan: StoredPlan): number } {
  /** planId -> the writer of a running apply (this process; the engine runs one plan's steps in order). */
  const running = new Map<string, PackageWriter>();

  const loadAll = async (selection: ExportSelection): Promise<LoadedCollection[]> => {
    const { collections } = d.writer();
    const out: LoadedCollection[] = [];
    for (const name of selection.collections) out.push(await collections.get(name));
    return out;
  };

  const snapshot = async (selection: ExportSelection) => {
    const loaded = await loadAll(selection);
    return createHash('sha256')
      .update(JSON.stringify(loaded.map((c) => [c.name, c.uid, c.version])))
      .digest('hex');
  };

  return {
    id: EXPORT_DOMAIN,
    auditDomain: 'content-package',
    modes: ['add'],
    defaultMode: 'add',
    inlineThreshold: EXPORT_INLINE_THRESHOLD,
    transactional: false,

    validate: (input: unknown) => checkSelection(input, d.writer().collections),

    snapshot: (selection) => snapshot(selection),

    async plan(selection, _mode, ctx: DomainContext): Promise<PlanDraft> {
      const draft = await planExport(d.writer().sequelize, await loadAll(selection), ctx.tenantId, selection);
      return { ...draft, targetHash: await snapshot(selection) };
    },

    apply: (op, ctx) => applyExportStep(d, running, op, ctx),

    verify: (plan, ctx) => verifyExport(d, plan.planId, ctx.tenantId),

    estimateOf(plan: StoredPlan): number {
      const op = plan.operationsFull.find((o) => (o.payload as Payload | undefined)?.step === 'package');
      return op ? Number((op.payload as { estimatedBytes?: number }).estimatedBytes ?? 0) : 0;
    },
  };
}
