/**
 * plan() of the content-import domain: reads the validated package twice (identities first, then values)
 * so memory holds per entry only its identity, matches every entry to the target (matching.ts), decides
 * per entry (create, update, copy, skip, conflict, delete in mirror) and writes the decisions to staging
 * files (import-staging.ts); the plan itself carries one small operation per collection, action and
 * chunk of at most 500 entities.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import stableStringify from 'safe-stable-stringify';
import { z } from 'zod';
import { hasPermission, type SafetyMode } from '../../kernel/sdk.js';
import {
  valueSchema,
  type CollectionsService,
  type EntriesService,
  type FieldDefinition,
  type LoadedCollection,
} from '../content/public.js';
import type { DataOperation, DomainContext, PlanDraft } from '../data-ops/public.js';
import { entryChecksum, isMedia, isRef } from './entry-codec.js';
import { readSchema, incompatibilities, type PackageSchema } from './import-schemas.js';
import { newIdsOfPlan } from './new-ids.js';
import { StagingWriter, type ImportPayload, type StagedMedia } from './import-staging.js';
import { formHash, importerLinks, loadTargetIndex, valueKey, type TargetIndex } from './import-target.js';
import type { ImportUploads } from './import-uploads.js';
import type { ContentLedger } from './ledger.js';
import { matchIdentities, type IncomingIdentity, type MatchDecision } from './matching.js';
import { mediaPlan } from './import-media.js';
import { filesUrl, richTextFilePaths, rewriteRichTextFiles } from './rich-text-files.js';
import { readNdjson, safeRelativePath } from './package-reader.js';
import { Notes } from './plan-notes.js';
import { conflictResolutionsSchema, type ConflictDetail } from './conflicts.js';

export interface ImportInput {
  uploadId: string;
  duplicateStrategy: 'skip' | 'update' | 'copy' | 'fail';
  conflictStrategy: 'skip' | 'source';
  /** Per conflict (`<collection>/<syncId>`): `source` (the package wins) or `target` (kept here); beats conflictStrategy. */
  resolutions?: Record<string, 'source' | 'target'>;
  mappings: Record<string, string>;
}

export const importInputSchema = z
  .object({
    uploadId: z.string().min(1).max(64),
    duplicateStrategy: z.enum(['skip', 'update', 'copy', 'fail']).default('update'),
    conflictStrategy: z.enum(['skip', 'source']).default('skip'),
    resolutions: conflictResolutionsSchema.optional(),
    mappings: z
      .record(z.string().max(200), z.string().min(1).max(64))
      .refine((m) => Object.keys(m).length <= 10_000, 'at most 10000 mappings')
      .default({}),
  })
  .strict();

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const entrySchema = z
  .object({
    syncId: z.string().min(1).max(36),
    sourceId: z.string().min(1).max(64),
    slug: z.string().min(1).max(191),
    status: z.enum(['draft', 'published', 'archived']),
    createdAt: z.string().max(64).optional(),
    updatedAt: z.string().max(64).optional(),
    externalIds: z
      .array(z.object({ format: z.string().max(64), entity: z.string().max(64), id: z.string().max(191) }))
      .max(50)
      .optional(),
    fields: z.record(z.string(), z.unknown()),
    checksum: hex64,
    baseChecksum: hex64.optional(),
  })
  .passthrough();
type PackageEntryLine = z.output<typeof entrySchema>;

export interface PlanDeps {
  uploads: ImportUploads;
  sequelize: Sequelize;
  collections: CollectionsService;
  entries: EntriesService;
  ledger: ContentLedger;
  maxEntries: number;
}

/** The collections of `wanted` (name -> relation targets) with each after the ones it relates to. */
function creationOrder(wanted: Map<string, string[]>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string, path: Set<string>) => {
    if (seen.has(name) || path.has(name)) return;
    path.add(name);
    for (const target of wanted.get(name) ?? []) if (wanted.has(target)) visit(target, path);
    path.delete(name);
    seen.add(name);
    out.push(name);
  };
  for (const name of wanted.keys()) visit(name, new Set());
  return out;
}

type Incoming = IncomingIdentity;
const syncIdOf = (it: Incoming): string => it.key.slice(it.collection.length + 1);

/** The candidate list most entries have (none): shared, replaced by an own array on the first candidate. */
const NONE: string[] = [];
function addExternal(it: Incoming, ids: string[]): void {
  if (!ids.length) return;
  if (it.byExternal === NONE) it.byExternal = [];
  it.byExternal.push(...ids);
}

export async function planImport(
  d: PlanDeps,
  input: ImportInput,
  mode: SafetyMode,
  ctx: DomainContext,
): Promise<Omit<PlanDraft, 'targetHash'>> {
  const notes = new Notes();
  const { meta, dir, root } = await d.uploads.load(input.uploadId, ctx.tenantId);
  const m = meta.manifest;
  if (!meta.valid || !m) {
    return { operations: [], warnings: [], blockedReasons: [`The package is not valid: ${meta.problems.slice(0, 10).join('; ')}`] };
  }
  const peer = m.source.installationId;
  const tenantId = ctx.tenantId;

  // Schemas: existing collections must agree on field types; missing ones are created first.
  const here = new Map(d.collections.list().map((c) => [c.name, c]));
  const schemas = new Map<string, PackageSchema>();
  for (const c of m.collections) {
    const s = await readSchema(root, c.name, c.schemaFile);
    if (typeof s === 'string') notes.block(s);
    else schemas.set(c.name, s);
  }
  const missing = new Map<string, PackageSchema>();
  for (const [name, s] of schemas) {
    const target = here.get(name);
    if (target) {
      for (const p of incompatibilities(name, target.fields, s.fields)) notes.block(p);
      const names = new Set(target.fields.map((f) => f.name));
      const dropped = s.fields.filter((f) => !names.has(f.name)).map((f) => f.name);
      if (dropped.length)
        notes.warn(`collection '${name}': fields ${dropped.join(', ')} are not in this instance's schema; their values are dropped`, name);
    } else missing.set(name, s);
  }
  const relTargets = (s: PackageSchema) => s.fields.filter((f) => f.type === 'relation').map((f) => f.collection!);
  for (const [name, s] of missing)
    for (const t of relTargets(s))
      if (t !== name && !here.has(t) && !missing.has(t))
        notes.block(`collection '${name}' relates to '${t}', which exists neither here nor in the package`);
  if (missing.size && !hasPermission(ctx.identity, 'collections:manage'))
    notes.block(`collections ${[...missing.keys()].join(', ')} do not exist here: creating them needs the permission collections:manage`);
  const operations: Array<DataOperation<ImportPayload>> = [];
  for (const name of creationOrder(new Map([...missing].map(([n, s]) => [n, relTargets(s)])))) {
    const s = missing.get(name)!;
    operations.push({
      action: 'create',
      type: 'collection',
      target: name,
      count: 1,
      outsideTransaction: true,
      payload: { kind: 'collection', name, label: s.label, singular: s.singular, fields: s.fields },
    });
  }
  /** The fields values are imported into (the target's, or the created collection's), and those the package brings. */
  const targetFields = (name: string): FieldDefinition[] => here.get(name)?.fields ?? schemas.get(name)?.fields ?? [];
  const commonFields = (name: string): FieldDefinition[] => {
    const brought = new Set((schemas.get(name)?.fields ?? []).map((f) => f.name));
    return targetFields(name).filter((f) => brought.has(f.name));
  };
  if (notes.blocked.length) {
    notes.close();
    return { operations, warnings: notes.warnings, blockedReasons: notes.blocked };
  }

  // Target indexes of the package's existing collections.
  const indexes = new Map<string, TargetIndex>();
  const loaded = (name: string): LoadedCollection | undefined => here.get(name);
  for (const c of m.collections)
    if (here.has(c.name)) indexes.set(c.name, await loadTargetIndex(here.get(c.name)!, tenantId, commonFields(c.name), d.entries, loaded));

  // Pass 1: identities.
  // Per entry only its identity (a 100,000-entry package is planned in bounded memory): shared empty
  // candidate lists, one key per source id unless several entries share it.
  const incoming: Incoming[] = [];
  const byKey = new Map<string, Incoming>();
  const external = new Map<
    string,
    { entryKeys: Array<{ key: string; format: string; entity: string; id: string }>; sourceIds: Map<string, string | string[]> }
  >();
  const keysOf = (v: string | string[] | undefined): string[] => (v === undefined ? NONE : typeof v === 'string' ? [v] : v);
  let total = 0;
  for (const c of m.collections) {
    const index = indexes.get(c.name);
    const uniques = index ? commonFields(c.name).filter((f) => f.unique) : [];
    const ext = {
      entryKeys: [] as Array<{ key: string; format: string; entity: string; id: string }>,
      sourceIds: new Map<string, string | string[]>(),
    };
    external.set(c.name, ext);
    if (!safeRelativePath(c.file)) continue;
    for await (const { line, value } of readNdjson(join(root, c.file), (n, p) => notes.block(`${c.file} line ${n}: ${p}`))) {
      if (++total > d.maxEntries) {
        notes.block(`the package holds more than ${d.maxEntries} entries (CONTENT_IMPORT_MAX_PACKAGE_ENTRIES)`);
        break;
      }
      const parsed = entrySchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        notes.block(`${c.file} line ${line}: ${issue.path.join('.') || '(entry)'}: ${issue.message}`);
        continue;
      }
      const e = parsed.data;
      const key = `${c.name}/${e.syncId}`;
      if (byKey.has(key)) {
        notes.block(`${c.file} line ${line}: syncId ${e.syncId} appears twice`);
        continue;
      }
      if (entryChecksum(e.slug, e.status, e.fields) !== e.checksum) {
        notes.block(`${c.file} line ${line}: the entry's checksum does not match its content (${key})`);
        continue;
      }
      let natural = NONE;
      const bySlug = index?.bySlug.get(e.slug);
      if (bySlug) natural = [bySlug];
      for (const f of uniques) {
        const k = valueKey(f, e.fields[f.name]);
        const id = k === null ? undefined : index!.byUnique.get(f.name)?.get(k);
        if (id) natural = [...natural, id];
      }
      const it: Incoming = {
        key,
        collection: c.name,
        bySyncId: index?.bySyncId.get(e.syncId) ?? null,
        byExternal: NONE,
        byNatural: natural,
      };
      incoming.push(it);
      byKey.set(key, it);
      // External ids can only match entries that exist here: none to collect for an empty target.
      if (!index?.rows.size) continue;
      for (const x of e.externalIds ?? []) ext.entryKeys.push({ key, format: x.format, entity: x.entity, id: x.id });
      const had = ext.sourceIds.get(e.sourceId);
      ext.sourceIds.set(e.sourceId, had === undefined ? key : [...keysOf(had), key]);
    }
  }
  // External ids: importer links of the target, and earlier imports from the same source installation.
  for (const [name, ext] of external) {
    const index = indexes.get(name);
    if (!index) continue;
    const sourceIds = [...ext.sourceIds.keys()];
    // Importer links: an entry's externalIds by (format, entity, id); its sourceId by the id alone.
    const links = await importerLinks(d.sequelize, tenantId, name, [...new Set([...ext.entryKeys.map((x) => x.id), ...sourceIds])]);
    const byLink = new Map<string, string[]>();
    const byExternalId = new Map<string, string[]>();
    for (const l of links) {
      if (!index.rows.has(l.entry_id)) continue;
      const k = `${l.format}\0${l.entity}\0${l.external_id}`;
      byLink.set(k, [...(byLink.get(k) ?? []), l.entry_id]);
      byExternalId.set(l.external_id, [...(byExternalId.get(l.external_id) ?? []), l.entry_id]);
    }
    for (const x of ext.entryKeys) addExternal(byKey.get(x.key)!, byLink.get(`${x.format}\0${x.entity}\0${x.id}`) ?? NONE);
    for (const [sourceId, keys] of ext.sourceIds)
      for (const id of byExternalId.get(sourceId) ?? NONE) for (const key of keysOf(keys)) addExternal(byKey.get(key)!, [id]);
    for (let i = 0; i < sourceIds.length; i += 500) {
      const rows = await d.sequelize.query<{ source_id: string; entry_id: string }>(
        'SELECT source_id, entry_id FROM cms_content_import_sources WHERE tenant_id = :tenantId AND source = :peer AND collection = :name AND source_id IN (:ids)',
        { type: QueryTypes.SELECT, replacements: { tenantId, peer, name, ids: sourceIds.slice(i, i + 500) } },
      );
      for (const r of rows)
        if (index.rows.has(r.entry_id))
          for (const key of keysOf(ext.sourceIds.get(r.source_id))) addExternal(byKey.get(key)!, [r.entry_id]);
    }
  }

  // Manual mappings: each names an entry of the package and an entry of the target (or new / skip).
  const mappings = new Map<string, string>();
  for (const [key, value] of Object.entries(input.mappings)) {
    const it = byKey.get(key);
    if (!it) {
      notes.block(`mapping '${key}' names no entry of the package (use "<collection>/<syncId>")`);
      continue;
    }
    if (value !== 'new' && value !== 'skip' && !indexes.get(it.collection)?.rows.has(value)) {
      notes.block(`mapping '${key}': no entry '${value}' in collection '${it.collection}' here`);
      continue;
    }
    mappings.set(key, value);
  }
  const decisions = matchIdentities(incoming, mappings);
  for (const [key, dcs] of decisions) {
    if (dcs.kind !== 'ambiguous') continue;
    notes.warn(
      `several candidates: ${dcs.candidates.join(', ')}${dcs.candidates.length === 1 ? ' (also matched by another package entry)' : ''}`,
      key,
    );
    notes.block(
      `${key}: ambiguous match (${dcs.candidates.join(', ')}); resolve it with mappings {"${key}": "<entry id>" | "new" | "skip"}`,
    );
  }
  if (notes.blocked.length) {
    notes.close();
    return { operations, warnings: notes.warnings, blockedReasons: notes.blocked };
  }

  // New entries get their ids now, so references to them resolve in the plan: derived from the entry's
  // key and a secret of this plan (as unique as random ids, and no map of 100,000 ids to hold).
  const newId = newIdsOfPlan();
  const foreign = new Map<string, Map<string, string>>();
  const refTarget = async (collection: string, syncId: string): Promise<string | null> => {
    const key = `${collection}/${syncId}`;
    const dcs = decisions.get(key);
    if (dcs?.kind === 'matched') return dcs.targetId;
    if (dcs?.kind === 'new') return newId(key);
    const index = indexes.get(collection);
    if (index) return index.bySyncId.get(syncId) ?? null;
    let map = foreign.get(collection);
    if (!map) {
      map = new Map();
      const c = here.get(collection);
      if (c) {
        const rows = (await c.model.findAll({
          attributes: ['id', 'sync_id'],
          where: { tenant_id: tenantId },
          raw: true,
        })) as unknown as Array<{
          id: string;
          sync_id: string;
        }>;
        for (const r of rows) map.set(r.sync_id, r.id);
      }
      foreign.set(collection, map);
    }
    return map.get(syncId) ?? null;
  };

  // Media: by SHA-256 against this tenant's media records; missing ones with their file in the package are carried over.
  const media = await mediaPlan(d.sequelize, root, m, tenantId, notes);
  const pendingMedia = new Set<string>();

  const staging = new StagingWriter(dir);
  await staging.open();
  const claimed = new Map<string, Set<string>>();
  for (const it of incoming) {
    const dcs = decisions.get(it.key)!;
    if (dcs.kind === 'matched') {
      let s = claimed.get(it.collection);
      if (!s) claimed.set(it.collection, (s = new Set()));
      s.add(dcs.targetId);
    }
  }
  // Mirror: the target's entries of the package's collections that no package entry matched are deleted.
  const slugs = new Map<string, Set<string>>();
  for (const [name, index] of indexes) {
    const taken = new Set(index.bySlug.keys());
    if (mode === 'mirror') {
      const keep = claimed.get(name) ?? new Set<string>();
      for (const row of index.rows.values())
        if (!keep.has(row.id)) {
          await staging.add(name, 'delete', { id: row.id, syncId: row.syncId });
          taken.delete(row.slug);
        }
    }
    slugs.set(name, taken);
  }
  const freeSlug = (collection: string, wanted: string, from = 1): string => {
    let taken = slugs.get(collection);
    if (!taken) slugs.set(collection, (taken = new Set()));
    let slug = wanted;
    for (let n = from; taken.has(slug); n++)
      slug = n > 10_000 ? `${wanted.slice(0, 170)}-${randomUUID().slice(0, 8)}` : `${wanted.slice(0, 180)}-${n + 1}`;
    taken.add(slug);
    return slug;
  };
  const skipped = new Map<string, number>();
  const skip = (collection: string) => skipped.set(collection, (skipped.get(collection) ?? 0) + 1);
  let addNoUpdate = 0;

  // Pass 2: values, decisions, staging.
  for (const c of m.collections) {
    const fields = commonFields(c.name);
    const index = indexes.get(c.name);
    const bases = await d.ledger.bases(
      tenantId,
      peer,
      c.name,
      // Only matched entries compare with a base (the last version both sides agreed on).
      incoming.filter((x) => x.collection === c.name && decisions.get(x.key)!.kind === 'matched').map(syncIdOf),
    );
    for await (const { value } of readNdjson(join(root, c.file), () => undefined)) {
      const parsed = entrySchema.safeParse(value);
      if (!parsed.success) continue;
      const e: PackageEntryLine = parsed.data;
      const key = `${c.name}/${e.syncId}`;
      const dcs: MatchDecision | undefined = decisions.get(key);
      if (!dcs || dcs.kind === 'ambiguous') continue;
      if (dcs.kind === 'skip') {
        skip(c.name);
        continue;
      }
      // Values in target form.
      const values: Record<string, unknown> = {};
      const pending: string[] = [];
      for (const f of fields) {
        const v = e.fields[f.name];
        if (v === null || v === undefined) values[f.name] = null;
        else if (f.type === 'relation') {
          if (!isRef(v)) {
            notes.block(`${key}: field '${f.name}' is not a {$ref} value`);
            continue;
          }
          const id = await refTarget(v.$ref.collection, v.$ref.syncId);
          if (!id)
            notes.warn(
              `field '${f.name}' refers to ${v.$ref.collection}/${v.$ref.syncId}, which is neither here nor in the package: set to null`,
              key,
            );
          values[f.name] = id;
        } else if (f.type === 'media') {
          if (!isMedia(v)) {
            notes.block(`${key}: field '${f.name}' is not a {$media} value`);
            continue;
          }
          const r = media.resolve(v.$media);
          if (r === 'pending') {
            values[f.name] = { $media: v.$media };
            pending.push(v.$media);
          } else {
            if (r === null) notes.warn(`field '${f.name}': media ${v.$media} is neither here nor in the package: set to null`, key);
            values[f.name] = r;
          }
        } else {
          const checked = valueSchema(f).safeParse(v);
          if (!checked.success) notes.block(`${key}: field '${f.name}': ${checked.error.issues[0]?.message ?? 'invalid value'}`);
          else if (f.type === 'richtext' && typeof checked.data === 'string') {
            // Images (and links) of the rich text that name a media record of the package by its `/files/` URL
            // point at that record's copy here: found by SHA-256 now, or carried over by this apply (then the
            // staged value is {$richtext, $files} and the apply writes the new URLs).
            const html = checked.data;
            const now = new Map<string, string>();
            const later: Record<string, string> = {};
            for (const path of richTextFilePaths(html)) {
              const sourceId = media.sourceOfPath(path);
              if (!sourceId) continue;
              const r = media.resolve(sourceId);
              if (r === 'pending') {
                later[path] = sourceId;
                pending.push(sourceId);
              } else if (r === null)
                notes.warn(
                  `field '${f.name}': ${filesUrl(path)} is neither here nor in the package (export with includeMedia): kept as it is`,
                  key,
                );
              else {
                const target = media.targetPath(r);
                if (target) now.set(path, filesUrl(target));
              }
            }
            const rewritten = now.size ? rewriteRichTextFiles(html, (path) => now.get(path) ?? null) : html;
            values[f.name] = Object.keys(later).length ? { $richtext: rewritten, $files: later } : rewritten;
          } else values[f.name] = checked.data;
        }
      }
      const createdAt = e.createdAt && !Number.isNaN(Date.parse(e.createdAt)) ? Date.parse(e.createdAt) : Date.now();
      const create = async (id: string, syncId: string, record: boolean) => {
        for (const f of targetFields(c.name))
          if (f.required && (values[f.name] === null || values[f.name] === undefined) && (f.default === undefined || f.default === null))
            notes.block(`${key}: required field '${f.name}' has no value`);
        const slug = freeSlug(c.name, e.slug);
        if (slug !== e.slug && record) notes.warn(`slug '${e.slug}' is taken here: created as '${slug}'`, key);
        for (const p of pending) pendingMedia.add(p);
        await staging.add(c.name, 'create', {
          id,
          syncId,
          slug,
          status: e.status,
          createdAt,
          values,
          checksum: e.checksum,
          sourceId: e.sourceId,
          record,
        });
      };
      if (dcs.kind === 'new') {
        const syncId = index?.bySyncId.has(e.syncId) ? randomUUID() : e.syncId;
        await create(newId(key), syncId, true);
        continue;
      }
      const row = index!.rows.get(dcs.targetId)!;
      if (!pending.length && formHash(e.slug, e.status, values) === row.formHash) {
        // Unchanged: nothing to write; both sides now agree on this checksum.
        await staging.add(c.name, 'record', { id: row.id, syncId: e.syncId, checksum: e.checksum, sourceId: e.sourceId });
        skip(c.name);
        continue;
      }
      const base = e.baseChecksum ?? bases.get(e.syncId);
      if (base !== undefined && e.checksum === base && row.pkgChecksum !== base) {
        // Changed only here since the last agreed version: the package holds the old one, so ours is kept
        // (whatever the duplicate strategy: this is the same entry, not a duplicate).
        skip(c.name);
        continue;
      }
      const conflict = base !== undefined && row.pkgChecksum !== base && e.checksum !== base && e.checksum !== row.pkgChecksum;
      let action: 'update' | 'skip' | 'copy' | 'fail' = input.duplicateStrategy === 'update' ? 'update' : input.duplicateStrategy;
      if (conflict) {
        const chosen = input.resolutions?.[key];
        const wins = (chosen ?? (input.conflictStrategy === 'source' ? 'source' : 'target')) === 'source' && mode !== 'add';
        const decided = chosen ? (wins ? 'the package wins, as chosen' : 'kept here, as chosen') : wins ? 'the package wins' : 'skipped';
        const detail = notes.room()
          ? await conflictDetail(d, here.get(c.name)!, tenantId, row.id, e, values, commonFields(c.name), wins)
          : undefined;
        notes.warn(`conflict: changed here and in the package since the last agreed version (${decided})`, key, detail);
        action = wins ? 'update' : 'skip';
      } else if (action === 'update' && mode === 'add') {
        addNoUpdate++;
        action = 'skip';
      }
      if (action === 'fail') {
        notes.block(`${key}: duplicate of entry ${row.id} (matched by ${dcs.how}) and different (duplicateStrategy fail)`);
        continue;
      }
      if (action === 'skip') {
        skip(c.name);
        continue;
      }
      if (action === 'copy') {
        await create(randomUUID(), randomUUID(), false);
        continue;
      }
      let slug = e.slug;
      if (slug !== row.slug) {
        slugs.get(c.name)!.delete(row.slug);
        slug = freeSlug(c.name, e.slug);
        if (slug !== e.slug) notes.warn(`slug '${e.slug}' is taken here: updated as '${slug}'`, key);
      }
      for (const p of pending) pendingMedia.add(p);
      await staging.add(c.name, 'update', {
        id: row.id,
        syncId: row.syncId,
        slug,
        status: e.status,
        values,
        checksum: e.checksum,
        sourceId: e.sourceId,
        record: true,
      });
    }
  }
  if (addNoUpdate) notes.warn(`${addNoUpdate} matched entries differ from the package: mode add never updates, they are skipped`);

  if (pendingMedia.size) {
    const list: StagedMedia[] = [...pendingMedia].sort().map((id) => media.staged(id)!);
    const file = await staging.writeFile(list);
    operations.push({
      action: 'create',
      type: 'media',
      target: 'media files',
      count: list.length,
      outsideTransaction: true,
      payload: { kind: 'media', staging: staging.id, file },
    });
  }
  const entryOps = await staging.finish(creationOrder(new Map(m.collections.map((c) => [c.name, relTargets(schemas.get(c.name)!)]))));
  operations.push(...entryOps);
  for (const [name, n] of skipped) operations.push({ action: 'skip', type: 'entry', target: name, count: n });
  notes.close();
  return { operations, warnings: notes.warnings, blockedReasons: notes.blocked };
}

const TITLE_FIELDS = ['title', 'name', 'label', 'headline'];
function titleOf(values: Record<string, unknown>, fields: FieldDefinition[], slug: string): string {
  for (const k of TITLE_FIELDS)
    if (typeof values[k] === 'string' && (values[k] as string).trim()) return (values[k] as string).slice(0, 200);
  const text = fields.find((f) => f.type === 'text' && typeof values[f.name] === 'string' && (values[f.name] as string).trim());
  return text ? String(values[text.name]).slice(0, 200) : slug;
}

const same = (a: unknown, b: unknown): boolean => (stableStringify(a ?? null) ?? '') === (stableStringify(b ?? null) ?? '');

async function conflictDetail(
  d: PlanDeps,
  c: LoadedCollection,
  tenantId: string,
  targetId: string,
  e: PackageEntryLine,
  incoming: Record<string, unknown>,
  fields: FieldDefinition[],
  wins: boolean,
): Promise<ConflictDetail | undefined> {
  const [current] = await d.entries.readEntries(c, [targetId], tenantId);
  if (!current) return undefined;
  const changedFields: string[] = [];
  if (current.slug !== e.slug) changedFields.push('slug');
  if (current.status !== e.status) changedFields.push('status');
  for (const f of fields) {
    const mine = current[f.name] ?? null;
    const theirs = incoming[f.name] ?? null;
    if (f.type === 'date' ? valueKey(f, mine) !== valueKey(f, theirs) : !same(mine, theirs)) changedFields.push(f.name);
  }
  const updated = (v: unknown) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : null);
  return {
    collection: c.name,
    syncId: e.syncId,
    target: { title: titleOf(current as Record<string, unknown>, fields, current.slug), updatedAt: updated(current.updatedAt) },
    source: { title: titleOf(incoming, fields, e.slug), updatedAt: updated(e.updatedAt) },
    changedFields,
    resolution: wins ? 'source' : 'target',
  };
}
