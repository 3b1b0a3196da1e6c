/**
 * apply(), verify() and snapshot() of the content-import domain. Entry operations run inside the
 * engine's transaction and read their staged decisions (one file of at most 500 lines each); collection
 * and media creations run before it (outsideTransaction) and answer undos. After the commit the list
 * caches are invalidated and the entry events published.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Identity } from '../../kernel/sdk.js';
import {
  columnName,
  toColumn,
  type CollectionsService,
  type EntriesService,
  type EntryChange,
  type FieldDefinition,
  type LoadedCollection,
} from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import type { DataOperation, DomainContext, StoredPlan, Undo, VerifyResult } from '../data-ops/public.js';
import type { ImportInput } from './import-plan.js';
import { readStaged, stagingDir, type ImportPayload, type StagedEntry, type StagedMedia, type StagedRef } from './import-staging.js';
import { formHash, valuesOf } from './import-target.js';
import { rewriteRichTextFiles } from './rich-text-files.js';
import type { ImportUploads } from './import-uploads.js';
import type { ContentLedger } from './ledger.js';

const MEDIA_MAP = 'media-map.json';
/** Source media id -> the `/files/` URL of its copy made by this apply (rich-text references). */
const MEDIA_URLS = 'media-urls.json';
const MAX_DISCREPANCIES = 50;

/** The media plugin's MediaService, as far as the import uses it. */
interface MediaIngest {
  ingest(
    identity: Identity,
    file: { tempPath: string; originalName: string; size: number },
    input: { folderId: string | null; private: boolean },
  ): Promise<{ _id: string; url?: string }>;
}

export interface ApplyDeps {
  uploads: ImportUploads;
  sequelize: () => Sequelize;
  collections: () => CollectionsService;
  entries: () => EntriesService;
  ledger: () => ContentLedger;
  media: () => MediaIngest | undefined;
  mediaStorage: () => MediaStorage | undefined;
}

type Ctx = DomainContext & { plan: StoredPlan };

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

/** What this apply's media step made: source media id -> new id, and -> the new `/files/` URL. */
interface MediaMap {
  ids: Record<string, string>;
  urls: Record<string, string>;
}

async function mediaMap(dir: string, staging: string): Promise<MediaMap> {
  const read = async (name: string) => {
    try {
      return JSON.parse(await readFile(join(stagingDir(dir, staging), name), 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  };
  return { ids: await read(MEDIA_MAP), urls: await read(MEDIA_URLS) };
}

/**
 * Staged values with media carried over by this apply resolved: `{$media}` to the new id, a rich text
 * staged as `{$richtext, $files: {path: sourceId}}` to its HTML with those `/files/` URLs pointing at the copies.
 */
function resolved(values: Record<string, unknown>, map: MediaMap): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    const o = v && typeof v === 'object' ? (v as { $media?: unknown; $richtext?: unknown; $files?: Record<string, string> }) : null;
    if (o && typeof o.$media === 'string') out[k] = map.ids[o.$media] ?? null;
    else if (o && typeof o.$richtext === 'string') {
      const files = o.$files ?? {};
      out[k] = rewriteRichTextFiles(o.$richtext, (path) => (Object.hasOwn(files, path) ? (map.urls[files[path]!] ?? null) : null));
    } else out[k] = v;
  }
  return out;
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

export function importApply(d: ApplyDeps) {
  async function applyCollection(p: Extract<ImportPayload, { kind: 'collection' }>): Promise<Undo> {
    const collections = d.collections();
    await collections.create({ name: p.name, label: p.label, singular: p.singular, fields: p.fields } as Parameters<
      CollectionsService['create']
    >[0]);
    return async () => {
      await collections.remove(p.name);
    };
  }

  /** Removes media records (and their files) this apply created. */
  async function dropMedia(ids: string[]): Promise<void> {
    if (!ids.length) return;
    const sequelize = d.sequelize();
    const storage = d.mediaStorage();
    const rows = await sequelize.query<{ path: string; metadata: string | null }>(
      'SELECT path, metadata FROM media_items WHERE id IN (:ids)',
      {
        type: QueryTypes.SELECT,
        replacements: { ids },
      },
    );
    for (const r of rows) {
      let thumbs: string[] = [];
      try {
        thumbs = Object.values((JSON.parse(r.metadata ?? '{}') as { thumbnails?: Record<string, { path: string }> }).thumbnails ?? {}).map(
          (t) => t.path,
        );
      } catch {
        thumbs = [];
      }
      for (const path of [r.path, ...thumbs]) {
        if (!storage) break;
        await storage.delete(path).catch(() => undefined);
        if (storage.hasTrash) await storage.purge(path).catch(() => undefined);
      }
    }
    await sequelize.query('DELETE FROM media_items WHERE id IN (:ids)', { replacements: { ids } });
  }

  async function applyMedia(p: Extract<ImportPayload, { kind: 'media' }>, ctx: Ctx): Promise<Undo> {
    const input = ctx.plan.input as ImportInput;
    const { dir, root } = await d.uploads.load(input.uploadId, ctx.tenantId);
    const media = d.media();
    if (!media) throw new Error('The media plugin is not available: the package media cannot be carried over');
    const list = await readStaged<StagedMedia>(dir, p.staging, p.file);
    const created: string[] = [];
    const map: Record<string, string> = {};
    const urls: Record<string, string> = {};
    try {
      for (const [i, m] of list.entries()) {
        const view = await media.ingest(
          ctx.identity,
          { tempPath: join(root, m.file), originalName: m.filename, size: m.size },
          { folderId: null, private: false },
        );
        created.push(view._id);
        map[m.sourceId] = view._id;
        if (typeof view.url === 'string') urls[m.sourceId] = view.url;
        ctx.progress?.(i + 1, list.length);
      }
      await writeFile(join(stagingDir(dir, p.staging), MEDIA_MAP), JSON.stringify(map));
      await writeFile(join(stagingDir(dir, p.staging), MEDIA_URLS), JSON.stringify(urls));
    } catch (err) {
      await dropMedia(created).catch(() => undefined);
      throw err;
    }
    return () => dropMedia(created);
  }

  async function applyEntries(p: Extract<ImportPayload, { kind: 'entries' }>, ctx: Ctx): Promise<void> {
    const t = ctx.transaction;
    if (!t) throw new Error('content-import entry operations run inside the apply transaction');
    const input = ctx.plan.input as ImportInput;
    const { dir, meta } = await d.uploads.load(input.uploadId, ctx.tenantId);
    const peer = meta.manifest!.source.installationId;
    const tenantId = ctx.tenantId;
    const userId = ctx.actor.userId;
    const sequelize = d.sequelize();
    const entries = d.entries();
    const ledger = d.ledger();
    const c = await d.collections().get(p.collection);
    const changes: EntryChange[] = [];
    const announceIds: string[] = [];
    const now = Date.now();
    if (p.action === 'delete') {
      const lines = await readStaged<StagedRef>(dir, p.staging, p.file);
      const ids = lines.map((l) => l.id);
      const before = await entries.readEntries(c, ids, tenantId, t);
      await c.model.destroy({ where: { tenant_id: tenantId, id: { [Op.in]: ids } }, transaction: t });
      await ledger.forget(
        tenantId,
        peer,
        p.collection,
        lines.map((l) => l.syncId),
        t,
      );
      await sequelize
        .getQueryInterface()
        .bulkDelete(
          'cms_content_import_sources',
          { tenant_id: tenantId, collection: p.collection, entry_id: { [Op.in]: ids } },
          { transaction: t },
        );
      for (const entry of before) changes.push({ event: 'delete', collection: p.collection, entry });
    } else if (p.action === 'record') {
      const lines = await readStaged<StagedRef>(dir, p.staging, p.file);
      await ledger.record(
        tenantId,
        peer,
        lines.map((l) => ({ collection: p.collection, syncId: l.syncId, checksum: l.checksum! })),
        t,
      );
      await recordSources(
        sequelize,
        tenantId,
        peer,
        p.collection,
        lines.map((l) => ({ sourceId: l.sourceId!, id: l.id })),
        t,
      );
      return;
    } else {
      const lines = await readStaged<StagedEntry>(dir, p.staging, p.file);
      const map = await mediaMap(dir, p.staging);
      if (p.action === 'create') {
        // Plain multi-row INSERTs (the values are already in column form): no model instance per entry.
        await sequelize.getQueryInterface().bulkInsert(
          c.table,
          lines.map((l) => ({
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
            ...columnsOf(c, resolved(l.values, map)),
          })),
          { transaction: t },
        );
        ctx.progress?.(lines.length, lines.length);
      } else {
        for (const [i, l] of lines.entries()) {
          const [n] = await c.model.update(
            {
              ...columnsOf(c, resolved(l.values, map)),
              slug: l.slug,
              status: l.status,
              version: sequelize.literal('version + 1'),
              updated_by: userId,
              updated_at: now,
            },
            { where: { tenant_id: tenantId, id: l.id }, transaction: t },
          );
          if (n !== 1) throw new Error(`${p.collection}/${l.syncId}: entry ${l.id} is gone; plan again`);
          if (i % 100 === 99) ctx.progress?.(i + 1, lines.length);
        }
      }
      const written = await entries.readEntries(
        c,
        lines.map((l) => l.id),
        tenantId,
        t,
      );
      await entries.recordRevisions(p.collection, written, tenantId, userId, 'import', t);
      const recorded = lines.filter((l) => l.record);
      await ledger.record(
        tenantId,
        peer,
        recorded.map((l) => ({ collection: p.collection, syncId: l.syncId, checksum: l.checksum })),
        t,
      );
      await recordSources(
        sequelize,
        tenantId,
        peer,
        p.collection,
        recorded.map((l) => ({ sourceId: l.sourceId, id: l.id })),
        t,
      );
      // Only the ids wait for the commit: the entries are read again then, so a large import does not hold
      // every written entry in memory until its transaction ends (deletes keep theirs: the rows are gone).
      announceIds.push(...written.map((entry) => entry._id));
    }
    const event = p.action === 'update' ? 'update' : 'create';
    // Nothing leaves the transaction before it commits.
    t.afterCommit(async () => {
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

  return {
    async apply(operation: DataOperation, ctx: Ctx): Promise<Undo | void> {
      const p = operation.payload as ImportPayload;
      if (p.kind === 'collection') return applyCollection(p);
      if (p.kind === 'media') return applyMedia(p, ctx);
      return applyEntries(p, ctx);
    },

    /** Every created or updated entry holds the planned values (in target form), every mirror delete is gone. */
    async verify(plan: StoredPlan, ctx: DomainContext): Promise<VerifyResult> {
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
          const values = resolved(l.values, map);
          const fields = c.fields.filter((f) => f.name in values);
          if (formHash(e.slug, e.status, valuesOf(e, fields)) !== formHash(l.slug, l.status, values))
            add(`${p.collection}/${l.syncId}: entry ${l.id} differs from the package`);
        }
      }
      return { ok: discrepancies.length === 0, discrepancies };
    },

    /** Hash of the package's collections here: schema version and every row's (id, version, updated_at). */
    async snapshot(input: ImportInput, ctx: DomainContext): Promise<string> {
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
    },
  };
}
