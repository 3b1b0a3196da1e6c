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
import { QueryTypes } from 'sequelize';
import { columnName, type LoadedCollection } from '../content/public.js';
import type { DataDomainDefinition, DataOperation, DomainContext, PlanDraft, StoredPlan, Undo } from '../data-ops/public.js';
import type { ExportPackages } from './export-packages.js';
import { checkSelection, countWhere, fieldsOfType, quote, referencedMediaWhere, selectionWhere } from './export-selection.js';
import { PackageWriter, type WriterDeps } from './package-writer.js';
import { EXPORT_DOMAIN, type ExportSelection } from './public.js';

export const EXPORT_INLINE_THRESHOLD = 500;

type Payload = { step: 'collection'; name: string; first: boolean } | { step: 'media' } | { step: 'package'; estimatedBytes: number };

/** Bytes per entry line besides its text values (ids, sync id, dates, checksum, JSON syntax), and per field. */
const LINE_BYTES = 320;
const FIELD_BYTES = 24;
const MEDIA_LINE_BYTES = 320;

export interface ExportDomainDeps {
  writer: () => WriterDeps;
  packages: () => ExportPackages;
  /** After a package is built (retention). */
  built?: () => Promise<void>;
}

export function exportDomain(d: ExportDomainDeps): DataDomainDefinition<ExportSelection> & { estimateOf(plan: StoredPlan): number } {
  /** planId -> the writer of a running apply (this process; the engine runs one plan's steps in order). */
  const running = new Map<string, PackageWriter>();
  const discard = async (planId: string) => {
    const w = running.get(planId);
    running.delete(planId);
    await w?.discard();
  };

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
      const { sequelize } = d.writer();
      const loaded = await loadAll(selection);
      const selected = new Set(selection.collections);
      const operations: DataOperation[] = [];
      const warnings: PlanDraft['warnings'] = [];
      let estimatedBytes = 0;
      let entries = 0;
      for (const [i, c] of loaded.entries()) {
        const where = selectionWhere(sequelize, c, ctx.tenantId, selection);
        const texts = c.fields.filter((f) => ['text', 'richtext', 'markdown', 'json', 'select'].includes(f.type));
        const sum = texts.length ? texts.map((f) => `COALESCE(LENGTH(${quote(sequelize, columnName(f))}), 0)`).join(' + ') : '0';
        const [row] = await sequelize.query<{ n: number | string; b: number | string | null }>(
          `SELECT COUNT(*) AS n, SUM(${sum}) AS b FROM ${quote(sequelize, c.table)} WHERE ${where.sql}`,
          { type: QueryTypes.SELECT, replacements: where.values },
        );
        const count = Number(row?.n ?? 0);
        entries += count;
        estimatedBytes += count * (LINE_BYTES + FIELD_BYTES * c.fields.length) + Number(row?.b ?? 0);
        operations.push({
          action: 'create',
          type: 'collection-file',
          target: c.name,
          count,
          payload: { step: 'collection', name: c.name, first: i === 0 } satisfies Payload,
        });
        for (const f of fieldsOfType(c, 'relation')) {
          if (selected.has(f.collection!)) continue;
          const n = await countWhere(sequelize, c.table, where, `${quote(sequelize, columnName(f))} IS NOT NULL`);
          if (n)
            warnings.push({
              message: `references leaving the selection: ${c.name}.${f.name} -> ${f.collection}: ${n} ${n === 1 ? 'entry refers' : 'entries refer'} to a collection not in the selection (the references travel as sync ids and resolve on import only where the target already has those entries)`,
              item: `${c.name}.${f.name}`,
            });
        }
        if (!selection.includeMedia)
          for (const f of fieldsOfType(c, 'media')) {
            const n = await countWhere(sequelize, c.table, where, `${quote(sequelize, columnName(f))} IS NOT NULL`);
            if (n)
              warnings.push({
                message: `no media files included: ${c.name}.${f.name} is set in ${n} ${n === 1 ? 'entry' : 'entries'} and includeMedia is off, so the package has the media records but not the files (an import matches them by sha256)`,
                item: `${c.name}.${f.name}`,
              });
          }
      }
      const mediaWhere = referencedMediaWhere(sequelize, loaded, ctx.tenantId, selection);
      let media = 0;
      if (mediaWhere) {
        const [row] = await sequelize.query<{ n: number | string; b: number | string | null }>(
          `SELECT COUNT(*) AS n, SUM(${quote(sequelize, 'size')}) AS b FROM ${quote(sequelize, 'media_items')} WHERE ${mediaWhere.sql}`,
          { type: QueryTypes.SELECT, replacements: mediaWhere.values },
        );
        media = Number(row?.n ?? 0);
        estimatedBytes += media * MEDIA_LINE_BYTES + (selection.includeMedia ? Number(row?.b ?? 0) : 0);
      }
      operations.push({
        action: 'create',
        type: 'media-manifest',
        target: selection.includeMedia ? 'media records and files' : 'media records',
        count: media,
        payload: { step: 'media' } satisfies Payload,
      });
      operations.push({
        action: 'create',
        type: 'package',
        target: 'archive',
        count: 0,
        payload: { step: 'package', estimatedBytes } satisfies Payload,
      });
      if (!entries) warnings.push({ message: 'the selection has no entries: the package will hold the schemas only' });
      return { operations, warnings, blockedReasons: [], targetHash: await snapshot(selection) };
    },

    async apply(op, ctx): Promise<Undo | void> {
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
    },

    async verify(plan, ctx) {
      const row = await d.packages().byPlan(ctx.tenantId, plan.planId);
      if (!row) return { ok: false, discrepancies: ['no package was registered for this plan'] };
      const s = await stat(d.packages().archivePath(row.packageId)).catch(() => null);
      if (!s) return { ok: false, discrepancies: [`the archive of package ${row.packageId} is missing`] };
      if (s.size !== row.size)
        return { ok: false, discrepancies: [`the archive of package ${row.packageId} has ${s.size} bytes, ${row.size} were written`] };
      return { ok: true, discrepancies: [] };
    },

    estimateOf(plan: StoredPlan): number {
      const op = plan.operationsFull.find((o) => (o.payload as Payload | undefined)?.step === 'package');
      return op ? Number((op.payload as { estimatedBytes?: number }).estimatedBytes ?? 0) : 0;
    },
  };
}
