/**
 * The entry operations of an import apply, inside the engine's transaction, each reading its staged
 * decisions (one file of at most 500 lines): delete (mirror), record (unchanged: the ledger and the
 * source ids only), create (plain multi-row INSERTs) and update. After the commit the list caches are
 * invalidated and the entry events published.
 */
import { Op, type Sequelize, type Transaction } from 'sequelize';
import {
  columnName,
  defaultLocaleCode,
  removeEntryLocaleVersions,
  replaceEntryLocaleVersions,
  writeDefaultLocaleTime,
  toColumn,
  type EntryChange,
  type FieldDefinition,
  type LoadedCollection,
} from '../content/public.js';
import { mediaMap, resolved } from './import-apply-media.js';
import type { ApplyContext, ApplyDeps } from './import-apply-types.js';
import type { ImportInput } from './import-plan.js';
import { readStaged, type ImportPayload, type StagedEntry, type StagedRef } from './import-staging.js';

type EntriesPayload = Extract<ImportPayload, { kind: 'entries' }>;

/** One entry operation: the payload, the collection, the transaction, who, for whom, from which installation. */
interface EntryStep {
  d: ApplyDeps;
  p: EntriesPayload;
  ctx: ApplyContext;
  t: Transaction;
  c: LoadedCollection;
  dir: string;
  peer: string;
  tenantId: string;
  userId: ApplyContext['actor']['userId'];
  now: number;
}

/** Upserts (tenant, source installation, collection, source id) -> entry id (delete + insert: portable). */
async function recordSources(
  sequelize: Sequelize,
  tenantId: string,
  source: string,
  collection: string,
  items: Array<{ sourceId: string; id: string }>,
  transaction: Transaction,
): Promise<void> {
  if (!items.length) return;
  const qi = sequelize.getQueryInterface();
  await qi.bulkDelete(
    'cms_content_import_sources',
    { tenant_id: tenantId, source, collection, source_id: { [Op.in]: items.map((i) => i.sourceId) } },
    { transaction },
  );
  const now = Date.now();
  await qi.bulkInsert(
    'cms_content_import_sources',
    items.map((i) => ({ tenant_id: tenantId, source, collection, source_id: i.sourceId, entry_id: i.id, updated_at: now })),
    { transaction },
  );
}

function columnsOf(c: LoadedCollection, values: Record<string, unknown>): Record<string, unknown> {
  const byName = new Map<string, FieldDefinition>(c.fields.map((f) => [f.name, f]));
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(values)) {
    const f = byName.get(name);
    if (f) out[columnName(f)] = toColumn(f, v);
  }
  return out;
}

/** Mirror: the staged entries are deleted, with their ledger rows and source ids; their delete events wait for the commit. */
async function deleteEntries(s: EntryStep, changes: EntryChange[]): Promise<void> {
  const { d, p, t, c, tenantId } = s;
  const lines = await readStaged<StagedRef>(s.dir, p.staging, p.file);
  const ids = lines.map((l) => l.id);
  const before = await d.entries().readEntries(c, ids, tenantId, t);
  await c.model.destroy({ where: { tenant_id: tenantId, id: { [Op.in]: ids } }, transaction: t });
  await removeEntryLocaleVersions(d.sequelize(), p.collection, tenantId, ids, t);
  await d.ledger().forget(
    tenantId,
    s.peer,
    p.collection,
    lines.map((l) => l.syncId),
    t,
  );
  await d
    .sequelize()
    .getQueryInterface()
    .bulkDelete(
      'cms_content_import_sources',
      { tenant_id: tenantId, collection: p.collection, entry_id: { [Op.in]: ids } },
      { transaction: t },
    );
  for (const entry of before) changes.push({ event: 'delete', collection: p.collection, entry });
}

/** Unchanged entries: both sides now agree on their checksum (ledger) and source id. */
async function recordEntries(s: EntryStep): Promise<void> {
  const { d, p, t, tenantId, peer } = s;
  const lines = await readStaged<StagedRef>(s.dir, p.staging, p.file);
  await d.ledger().record(
    tenantId,
    peer,
    lines.map((l) => ({ collection: p.collection, syncId: l.syncId, checksum: l.checksum! })),
    t,
  );
  await recordSources(
    d.sequelize(),
    tenantId,
    peer,
    p.collection,
    lines.map((l) => ({ sourceId: l.sourceId!, id: l.id })),
    t,
  );
}

/** Plain multi-row INSERTs (the values are already in column form): no model instance per entry. */
async function insertEntries(s: EntryStep, lines: StagedEntry[], map: Awaited<ReturnType<typeof mediaMap>>): Promise<void> {
  const { c, tenantId, userId, now } = s;
  const rows = lines.map((l) => ({
    id: l.id,
    tenant_id: tenantId,
    sync_id: l.syncId,
    slug: l.slug,
    status: l.status,
    version: 1,
    created_by: userId,
    updated_by: userId,
    created_at: l.createdAt ?? now,
    updated_at: now,
    ...columnsOf(c, resolved(l.values, map, c.fields)),
  }));
  await s.d.sequelize().getQueryInterface().bulkInsert(c.table, rows, { transaction: s.t });
  s.ctx.progress?.(lines.length, lines.length);
}

async function updateEntries(s: EntryStep, lines: StagedEntry[], map: Awaited<ReturnType<typeof mediaMap>>): Promise<void> {
  const { c, tenantId, userId, now } = s;
  for (const [i, l] of lines.entries()) {
    const [n] = await c.model.update(
      {
        ...columnsOf(c, resolved(l.values, map, c.fields)),
        slug: l.slug,
        status: l.status,
        version: s.d.sequelize().literal('version + 1'),
        updated_by: userId,
        updated_at: now,
      },
      { where: { tenant_id: tenantId, id: l.id }, transaction: s.t },
    );
    if (n !== 1) throw new Error(`${s.p.collection}/${l.syncId}: entry ${l.id} is gone; plan again`);
    if (i % 100 === 99) s.ctx.progress?.(i + 1, lines.length);
  }
}

/**
 * The entries' versions in other locales, as the package has them (those here replaced); an entry without `locales`
 * keeps its own. When each locale's values last changed (`localeUpdatedAt`) is kept: the versions' and the default's.
 */
async function writeVersions(s: EntryStep, lines: StagedEntry[], map: Awaited<ReturnType<typeof mediaMap>>): Promise<void> {
  const { c, tenantId, userId } = s;
  const defaultCode = lines.some((l) => l.localeUpdatedAt) ? await defaultLocaleCode(s.d.sequelize(), s.t) : '';
  for (const l of lines) {
    const target = { collection: c.name, tenantId, entryId: l.id, userId };
    const times = l.localeUpdatedAt ?? {};
    if (l.locales) {
      const versions = Object.fromEntries(
        Object.entries(l.locales).map(([code, v]) => [
          code,
          { status: v.status, fields: resolved(v.fields, map, c.fields), valuesAt: times[code] },
        ]),
      );
      await replaceEntryLocaleVersions(s.d.sequelize(), target, versions, s.t);
    }
    const at = times[defaultCode];
    if (at !== undefined) await writeDefaultLocaleTime(s.d.sequelize(), target, defaultCode, at, s.t);
  }
}

/** Creates or updates the staged entries, with their revisions, ledger rows and source ids; returns their ids. */
async function writeEntries(s: EntryStep): Promise<string[]> {
  const { d, p, t, c, tenantId, peer } = s;
  const lines = await readStaged<StagedEntry>(s.dir, p.staging, p.file);
  const map = await mediaMap(s.dir, p.staging);
  if (p.action === 'create') await insertEntries(s, lines, map);
  else await updateEntries(s, lines, map);
  await writeVersions(s, lines, map);
  const entries = d.entries();
  const written = await entries.readEntries(
    c,
    lines.map((l) => l.id),
    tenantId,
    t,
  );
  await entries.recordRevisions(p.collection, written, tenantId, s.userId, 'import', t);
  const recorded = lines.filter((l) => l.record);
  await d.ledger().record(
    tenantId,
    peer,
    recorded.map((l) => ({ collection: p.collection, syncId: l.syncId, checksum: l.checksum })),
    t,
  );
  await recordSources(
    d.sequelize(),
    tenantId,
    peer,
    p.collection,
    recorded.map((l) => ({ sourceId: l.sourceId, id: l.id })),
    t,
  );
  return written.map((entry) => entry._id);
}

/** Nothing leaves the transaction before it commits: then the list caches are dropped and the events published. */
function announceAfterCommit(s: EntryStep, changes: EntryChange[], announceIds: string[]): void {
  const { p, c, tenantId, userId } = s;
  const entries = s.d.entries();
  const event = p.action === 'update' ? 'update' : 'create';
  s.t.afterCommit(async () => {
    await entries.invalidateLists(tenantId, p.collection).catch(() => undefined);
    await entries.announceChanges(tenantId, userId, changes);
    if (!announceIds.length) return;
    const again = await entries.readEntries(c, announceIds, tenantId).catch(() => []);
    await entries.announceChanges(
      tenantId,
      userId,
      again.map((entry) => ({ event, collection: p.collection, entry })),
    );
  });
}

export async function applyEntries(d: ApplyDeps, p: EntriesPayload, ctx: ApplyContext): Promise<void> {
  const t = ctx.transaction;
  if (!t) throw new Error('content-import entry operations run inside the apply transaction');
  const input = ctx.plan.input as ImportInput;
  const { dir, meta } = await d.uploads.load(input.uploadId, ctx.tenantId);
  const peer = meta.manifest!.source.installationId;
  const c = await d.collections().get(p.collection);
  const s: EntryStep = { d, p, ctx, t, c, dir, peer, tenantId: ctx.tenantId, userId: ctx.actor.userId, now: Date.now() };
  const changes: EntryChange[] = [];
  // Only the ids wait for the commit: the entries are read again then, so a large import does not hold
  // every written entry in memory until its transaction ends (deletes keep theirs: the rows are gone).
  const announceIds: string[] = [];
  if (p.action === 'delete') await deleteEntries(s, changes);
  else if (p.action === 'record') return recordEntries(s);
  else announceIds.push(...(await writeEntries(s)));
  announceAfterCommit(s, changes, announceIds);
}
