import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import { createInterface } from 'node:readline';
import stringify from 'safe-stable-stringify';
import type { Identity } from '../../kernel/http/identity.js';
import type { ImportedEntity } from '../../kernel/registries/contracts.js';
import { coerce, SOURCE_FIELD, type ContentFieldType } from './field-names.js';
import type { ImportPlan } from './planner.js';
import type { ContentPort, MediaPort } from './ports.js';
import { fetchRemoteFile, type RemoteFetchOptions } from './remote-fetch.js';
import type { ImportStore } from './store.js';

/** Why records were skipped: counted per entity, and explained in the warnings. */
export type SkipReason = 'alreadyImported' | 'unchanged' | 'duplicateInFile' | 'notMapped';
export interface EntityResult {
  imported: number;
  failed: number;
  skipped: number;
  updated: number;
  skipReasons?: Partial<Record<SkipReason, number>>;
}
export interface RunOutcome {
  results: Record<string, EntityResult>;
  warnings: Array<{ message: string; line?: number }>;
  processed: number;
  total: number;
  /** Collections this run created (scaffold). */
  scaffolded: string[];
}
export interface RunInput {
  plan: ImportPlan;
  identity: Identity;
  spoolPath: string;
  workDir: string;
  content: ContentPort;
  media: MediaPort;
  store: ImportStore;
  batchSize: number;
  /** Set when attachments known only by URL are fetched into the media library (else the URL is recorded). */
  fetchRemote?: RemoteFetchOptions;
  /** After each batch; a rejection stops the run (the stream's client went away). */
  progress(processed: number, total: number): Promise<void>;
  shouldStop?(): boolean;
  /** Filled with the collections this run creates (scaffold), also when the run then fails. */
  scaffolded?: string[];
  /** Filled with the entries this run creates (not those it updates), also when the run then fails: a failed run removes them again. */
  created?: Array<{ collection: string; id: string }>;
  /** Resuming an interrupted run: the spool's first `processed` entities are done, with these results and warnings. */
  resume?: { processed: number; results: Record<string, EntityResult>; warnings: RunOutcome['warnings'] };
}

const MAX_WARNINGS = 200;
const externalKey = (id: string) => (id.length <= 191 ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`);
const checksumOf = (e: ImportedEntity) =>
  createHash('sha256')
    .update(stringify({ d: e.data, s: e.status ?? null, f: e.file ?? null }) ?? '')
    .digest('hex');
/** A URL for a warning: any user:password part is left out. */
const withoutCredentials = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1');
const messageOf = (err: unknown) => (err as Error)?.message ?? String(err);

/**
 * Writes the spool file's entities into their target collections: read line by line (readline), in
 * batches (one transaction per batch through the content SDK's createMany; a refused batch is retried
 * entity by entity so one bad record fails alone), with the delta ledger (import_links): a record
 * imported before is skipped (add) or updated when its data changed (merge).
 */
export async function runImport(input: RunInput): Promise<RunOutcome> {
  const { plan, identity, store, content } = input;
  const tenantId = identity.tenantId;
  const results: Record<string, EntityResult> = structuredClone(input.resume?.results ?? {});
  // A resumed run's explanations of skips are made again at its end; its other warnings carry on.
  const warnings: RunOutcome['warnings'] = (input.resume?.warnings ?? []).filter((w) => !/^\S+: \d+ skipped: /.test(w.message));
  let dropped = 0;
  const warn = (message: string, line?: number) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(line === undefined ? { message } : { message, line });
    else dropped++;
  };
  const targets = new Map(
    plan.operations.filter((o) => o.targetCollection && o.action !== 'skip').map((o) => [o.sourceType, o.targetCollection!]),
  );
  for (const o of plan.operations) results[o.sourceType] ??= { imported: 0, failed: 0, skipped: 0, updated: 0 };
  const skip = (r: EntityResult, reason: SkipReason) => {
    r.skipped++;
    (r.skipReasons ??= {})[reason] = (r.skipReasons[reason] ?? 0) + 1;
  };
  const scaffolded: string[] = input.scaffolded ?? [];

  // Scaffold: the missing collections first.
  const existing = new Set((await content.collections.list()).map((c) => c.name));
  for (const s of plan.scaffoldCollections) {
    if (existing.has(s.name)) continue;
    // Each field carries its default editing widget (the admin UI's entry editor follows it).
    await content.collections.create({
      name: s.name,
      fields: s.fields.map((f) => (s.widgets[f.name] ? { ...f, widget: s.widgets[f.name] } : f)),
    });
    existing.add(s.name);
    scaffolded.push(s.name);
  }
  const fieldTypes = new Map<string, Map<string, ContentFieldType>>();
  for (const name of new Set(targets.values())) {
    const c = await content.collections.get(name);
    fieldTypes.set(name, new Map(c.fields.map((f) => [f.name, f.type])));
  }
  const mappings = new Map<string, Map<string, string>>();
  for (const m of plan.fieldMappings)
    if (m.targetField) (mappings.get(m.entity) ?? mappings.set(m.entity, new Map()).get(m.entity)!).set(m.sourceField, m.targetField);
  const workRoot = await realpath(input.workDir);
  const importedAt = new Date().toISOString();

  /** Remote attachments fetched in this run, by URL (one media record per URL). */
  const fetched = new Map<string, string | null>();
  let fetchCount = 0;
  const remoteMedia = async (e: ImportedEntity, url: string): Promise<string | null> => {
    if (fetched.has(url)) return fetched.get(url)!;
    const target = join(workRoot, `remote-${++fetchCount}`);
    let id: string | null = null;
    try {
      await fetchRemoteFile(url, target, input.fetchRemote!);
      const name = e.file?.filename || basename(new URL(url).pathname) || 'attachment';
      id = (await input.media.upload(name, createReadStream(target)))._id;
    } catch (err) {
      warn(`${e.entity} ${e.externalId}: ${withoutCredentials(url)} not fetched: ${messageOf(err)}`, e.line);
    } finally {
      await rm(target, { force: true });
    }
    fetched.set(url, id);
    return id;
  };

  const mediaFor = async (e: ImportedEntity): Promise<string | null> => {
    if (!e.file?.path && e.file?.url && input.fetchRemote) return remoteMedia(e, e.file.url);
    if (!e.file?.path) return null;
    let real: string;
    try {
      real = await realpath(e.file.path);
    } catch {
      warn(`${e.entity} ${e.externalId}: attachment file missing`, e.line);
      return null;
    }
    if (!real.startsWith(workRoot + sep)) {
      warn(`${e.entity} ${e.externalId}: attachment path outside the job folder refused`, e.line);
      return null;
    }
    try {
      return (await input.media.upload(e.file.filename || 'attachment', createReadStream(real)))._id;
    } catch (err) {
      warn(`${e.entity} ${e.externalId}: attachment not stored: ${messageOf(err)}`, e.line);
      return null;
    }
  };

  const bodyOf = async (e: ImportedEntity, collection: string): Promise<Record<string, unknown>> => {
    const types = fieldTypes.get(collection)!;
    const map = mappings.get(e.entity) ?? new Map<string, string>();
    const body: Record<string, unknown> = {};
    const data = e.file?.url && e.data.url === undefined ? { ...e.data, url: e.file.url } : e.data;
    for (const [source, value] of Object.entries(data)) {
      const target = map.get(source);
      const type = target ? types.get(target) : undefined;
      if (!target || !type) continue;
      const v = coerce(value, type);
      if (v === undefined) warn(`${e.entity} ${e.externalId}: '${source}' is not a valid ${type}, left empty`, e.line);
      else body[target] = v;
    }
    const mediaField = map.get('file');
    if (mediaField && types.get(mediaField) === 'media') {
      const id = await mediaFor(e);
      if (id) body[mediaField] = id;
    } else if (e.file?.path || (e.file?.url && input.fetchRemote)) await mediaFor(e);
    if (types.has(SOURCE_FIELD)) body[SOURCE_FIELD] = { format: plan.format, importedAt, externalId: e.externalId, entity: e.entity };
    if (e.status) body.status = e.status;
    return body;
  };

  const link = async (e: ImportedEntity, collection: string, entryId: string, checksum: string) => {
    const where = { tenant_id: tenantId, collection, format: plan.format, entity: e.entity, external_id: externalKey(e.externalId) };
    const [n] = await store.links.update({ entry_id: entryId, checksum, updated_at: Date.now() }, { where });
    if (n === 0) await store.links.create({ ...where, entry_id: entryId, checksum, updated_at: Date.now() }).catch(() => undefined);
  };

  const flushEntity = async (entity: string, group: ImportedEntity[]) => {
    const r = (results[entity] ??= { imported: 0, failed: 0, skipped: 0, updated: 0 });
    const collection = targets.get(entity);
    if (!collection) {
      for (let i = 0; i < group.length; i++) skip(r, 'notMapped');
      return;
    }
    const links = await store.linksFor(
      tenantId,
      plan.format,
      entity,
      collection,
      group.map((e) => externalKey(e.externalId)),
    );
    // A record imported before whose entry was deleted since is imported again (the ledger only remembers).
    const alive = await content.entries(collection).existing([...new Set([...links.values()].map((l) => l.entry_id))]);
    const creates: Array<{ e: ImportedEntity; body: Record<string, unknown>; checksum: string }> = [];
    const seen = new Set<string>();
    for (const e of group) {
      const key = externalKey(e.externalId);
      const checksum = checksumOf(e);
      const prior = links.get(key);
      const known = prior && alive.has(prior.entry_id) ? prior : undefined;
      if (seen.has(key)) {
        warn(`${entity} ${e.externalId}: the same external id appears twice, later one skipped`, e.line);
        skip(r, 'duplicateInFile');
        continue;
      }
      seen.add(key);
      if (known && plan.mode === 'add') {
        skip(r, 'alreadyImported');
        continue;
      }
      if (known && known.checksum === checksum) {
        skip(r, 'unchanged');
        continue;
      }
      try {
        const body = await bodyOf(e, collection);
        if (known) {
          try {
            await content.entries(collection).update(known.entry_id, body);
            await link(e, collection, known.entry_id, checksum);
            r.updated++;
            r.imported++;
            continue;
          } catch (err) {
            if ((err as { code?: string }).code !== 'ENTRY_NOT_FOUND') throw err;
          }
        }
        creates.push({ e, body, checksum });
      } catch (err) {
        r.failed++;
        warn(`${entity} ${e.externalId}: ${messageOf(err)}`, e.line);
      }
    }
    if (!creates.length) return;
    const entries = content.entries(collection);
    try {
      const made = await entries.createMany(creates.map((c) => c.body));
      for (const entry of made) input.created?.push({ collection, id: entry._id });
      // New source ids: one multi-row insert per batch (a statement per row would commit, and on SQLite sync, per row).
      const fresh = made.flatMap((entry, i) => (links.has(externalKey(creates[i]!.e.externalId)) ? [] : [{ entry, c: creates[i]! }]));
      if (fresh.length) {
        const now = Date.now();
        await store.links.bulkCreate(
          fresh.map(({ entry, c }) => ({
            tenant_id: tenantId,
            format: plan.format,
            entity: c.e.entity,
            external_id: externalKey(c.e.externalId),
            collection,
            entry_id: entry._id,
            checksum: c.checksum,
            updated_at: now,
          })),
          { ignoreDuplicates: true },
        );
      }
      for (const [i, entry] of made.entries())
        if (links.has(externalKey(creates[i]!.e.externalId))) await link(creates[i]!.e, collection, entry._id, creates[i]!.checksum);
      r.imported += made.length;
    } catch {
      // One transaction refused: entity by entity, so a bad record fails alone and is named.
      for (const c of creates) {
        try {
          const entry = await entries.create(c.body);
          input.created?.push({ collection, id: entry._id });
          await link(c.e, collection, entry._id, c.checksum);
          r.imported++;
        } catch (err) {
          r.failed++;
          warn(`${entity} ${c.e.externalId}: ${messageOf(err)}`, c.e.line);
        }
      }
    }
  };

  const total = plan.operations.reduce((n, o) => n + o.count, 0);
  let processed = input.resume?.processed ?? 0;
  let toSkip = processed;
  let batch: ImportedEntity[] = [];
  const flush = async () => {
    const groups = new Map<string, ImportedEntity[]>();
    for (const e of batch) (groups.get(e.entity) ?? groups.set(e.entity, []).get(e.entity)!).push(e);
    for (const [entity, group] of groups) await flushEntity(entity, group);
    processed += batch.length;
    batch = [];
    await input.progress(processed, total);
  };
  const lines = createInterface({ input: createReadStream(input.spoolPath, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      if (!line.trim()) continue;
      let e: ImportedEntity;
      try {
        e = JSON.parse(line) as ImportedEntity;
        if (!e || typeof e.entity !== 'string' || typeof e.externalId !== 'string' || !e.data || typeof e.data !== 'object')
          throw new Error('not an entity');
      } catch {
        warn(`spool line ${n} is not a valid entity, skipped`);
        continue;
      }
      if (toSkip > 0) {
        toSkip--; // written before the interruption
        continue;
      }
      batch.push(e);
      if (batch.length >= input.batchSize) {
        await flush();
        if (input.shouldStop?.()) break;
      }
    }
    if (batch.length) await flush();
  } finally {
    lines.close();
  }
  if (dropped) warnings.push({ message: `${dropped} more warnings not shown` });
  return { results, warnings: [...skipExplanations(results, targets, plan.mode), ...warnings], processed, total, scaffolded };
}

const SKIP_TEXT: Record<SkipReason, (collection: string | undefined, mode: string) => string> = {
  alreadyImported: (c) => `imported into '${c}' before (mode add keeps the existing entries; mode merge updates changed ones)`,
  unchanged: (c) => `unchanged since they were imported into '${c}'`,
  duplicateInFile: () => 'repeat an external id seen earlier in this file',
  notMapped: () => 'not mapped to a collection',
};

/** One line per entity that skipped records, saying how many and why (first in the job's warnings). */
function skipExplanations(results: Record<string, EntityResult>, targets: Map<string, string>, mode: string): Array<{ message: string }> {
  const out: Array<{ message: string }> = [];
  for (const [entity, r] of Object.entries(results)) {
    if (!r.skipped) continue;
    const why = Object.entries(r.skipReasons ?? {}).map(
      ([reason, n]) => `${n} ${SKIP_TEXT[reason as SkipReason](targets.get(entity), mode)}`,
    );
    out.push({ message: `${entity}: ${r.skipped} skipped: ${why.join('; ')}` });
  }
  return out;
}
