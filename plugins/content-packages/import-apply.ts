/**
 * apply(), verify() and snapshot() of the content-import domain. Entry operations run inside the
 * engine's transaction and read their staged decisions (one file of at most 500 lines each); collection
 * and media creations run before it (outsideTransaction) and answer undos. After the commit the list
 * caches are invalidated and the entry events published.
 */
import { createHash } from 'node:crypto';
import { Op } from 'sequelize';
import type { CollectionsService, ComponentsService } from '../content/public.js';
import type { DataOperation, DomainContext, StoredPlan, Undo, VerifyResult } from '../data-ops/public.js';
import { applyEntries } from './import-apply-entries.js';
import { applyMedia, mediaMap, resolved, type MediaMap } from './import-apply-media.js';
import type { ApplyContext, ApplyDeps } from './import-apply-types.js';
import type { ImportInput } from './import-plan.js';
import { readStaged, type ImportPayload, type StagedEntry, type StagedRef } from './import-staging.js';
import { formHash, valuesOf } from './import-target.js';

export type { ApplyDeps } from './import-apply-types.js';

const MAX_DISCREPANCIES = 50;

async function applyCollection(d: ApplyDeps, p: Extract<ImportPayload, { kind: 'collection' }>): Promise<Undo> {
  const collections = d.collections();
  await collections.create({ name: p.name, label: p.label, singular: p.singular, fields: p.fields } as Parameters<
    CollectionsService['create']
  >[0]);
  return async () => {
    await collections.remove(p.name);
  };
}

async function applyComponent(d: ApplyDeps, p: Extract<ImportPayload, { kind: 'component' }>): Promise<Undo> {
  const components = d.components();
  if (!components) throw new Error('The content plugin has no components service here');
  await components.create({ name: p.name, label: p.label, fields: p.fields } as Parameters<ComponentsService['create']>[0]);
  return async () => {
    await components.remove(p.name);
  };
}

/** Every created or updated entry holds the planned values (in target form), every mirror delete is gone. */
async function verifyImport(d: ApplyDeps, plan: StoredPlan, ctx: DomainContext): Promise<VerifyResult> {
  const input = plan.input as ImportInput;
  const discrepancies: string[] = [];
  const add = (s: string) => void (discrepancies.length < MAX_DISCREPANCIES && discrepancies.push(s));
  let dir: string;
  try {
    dir = (await d.uploads.load(input.uploadId, ctx.tenantId)).dir;
  } catch {
    return { ok: false, discrepancies: ['the upload of this plan is gone (expired): nothing to compare with'] };
  }
  const maps = new Map<string, MediaMap>();
  for (const op of plan.operationsFull) {
    const p = op.payload as ImportPayload | undefined;
    if (!p || p.kind !== 'entries' || p.action === 'record') continue;
    const c = await d.collections().get(p.collection);
    if (p.action === 'delete') {
      const lines = await readStaged<StagedRef>(dir, p.staging, p.file);
      const left = await c.model.count({ where: { tenant_id: ctx.tenantId, id: { [Op.in]: lines.map((l) => l.id) } } });
      if (left) add(`${p.collection}: ${left} entries planned for deletion are still there`);
      continue;
    }
    let map = maps.get(p.staging);
    if (!map) maps.set(p.staging, (map = await mediaMap(dir, p.staging)));
    const lines = await readStaged<StagedEntry>(dir, p.staging, p.file);
    const found = new Map(
      (
        await d.entries().readEntries(
          c,
          lines.map((l) => l.id),
          ctx.tenantId,
        )
      ).map((e) => [String(e._id), e]),
    );
    for (const l of lines) {
      const e = found.get(l.id);
      if (!e) {
        add(`${p.collection}/${l.syncId}: entry ${l.id} is missing`);
        continue;
      }
      const values = resolved(l.values, map, c.fields);
      const fields = c.fields.filter((f) => f.name in values);
      if (formHash(e.slug, e.status, valuesOf(e, fields)) !== formHash(l.slug, l.status, values))
        add(`${p.collection}/${l.syncId}: entry ${l.id} differs from the package`);
    }
  }
  return { ok: discrepancies.length === 0, discrepancies };
}

/** Hash of the package's collections here: schema version and every row's (id, version, updated_at). */
async function importSnapshot(d: ApplyDeps, input: ImportInput, ctx: DomainContext): Promise<string> {
  const { meta } = await d.uploads.load(input.uploadId, ctx.tenantId);
  const hash = createHash('sha256').update(meta.uploadId);
  const here = new Map(
    d
      .collections()
      .list()
      .map((c) => [c.name, c]),
  );
  for (const name of (meta.manifest?.collections ?? []).map((c) => c.name).sort()) {
    const c = here.get(name);
    if (!c) {
      hash.update(`\0${name}:missing`);
      continue;
    }
    hash.update(`\0${name}:${c.uid}:${c.version}`);
    let last = '';
    for (;;) {
      const rows = (await c.model.findAll({
        attributes: ['id', 'version', 'updated_at'],
        where: { tenant_id: ctx.tenantId, id: { [Op.gt]: last } },
        order: [['id', 'ASC']],
        limit: 2000,
        raw: true,
      })) as unknown as Array<{ id: string; version: number; updated_at: number }>;
      for (const r of rows) hash.update(`|${r.id}:${String(r.version)}:${String(r.updated_at)}`);
      if (rows.length < 2000) break;
      last = rows[rows.length - 1]!.id;
    }
  }
  return hash.digest('hex');
}

export function importApply(d: ApplyDeps) {
  return {
    async apply(operation: DataOperation, ctx: ApplyContext): Promise<Undo | void> {
      const p = operation.payload as ImportPayload;
      if (p.kind === 'collection') return applyCollection(d, p);
      if (p.kind === 'component') return applyComponent(d, p);
      if (p.kind === 'media') return applyMedia(d, p, ctx);
      return applyEntries(d, p, ctx);
    },

    verify: (plan: StoredPlan, ctx: DomainContext) => verifyImport(d, plan, ctx),
    snapshot: (input: ImportInput, ctx: DomainContext) => importSnapshot(d, input, ctx),
  };
}
