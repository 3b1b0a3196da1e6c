import { createReadStream } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import { createInterface } from 'node:readline';
import type { Transaction } from 'sequelize';
import type { Identity } from '../../kernel/sdk.js';
import type { ImportedEntity } from './format-contract.js';
import { SOURCE_FIELD } from './field-names.js';
import type { ImportPlan } from './planner.js';
import type { CollectionInfo, ContentPort, MediaPort } from './ports.js';
import { parseEntity, type PrepareInput, type PrepareResult, type PreparedItem, type PrepareTarget } from './prepare-batch.js';
import { resolveLinks } from './resolve-links.js';
import { fetchRemoteFile, type RemoteFetchOptions } from './remote-fetch.js';
import type { ImportStore } from './store.js';

/** What mediaFor needs of a record. */
type MediaRecord = Pick<ImportedEntity, 'entity' | 'externalId' | 'file' | 'line'>;

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
  /** The import job: the ledger rows this run writes name it (the run's items). */
  jobId?: string;
  identity: Identity;
  spoolPath: string;
  workDir: string;
  content: ContentPort;
  media: MediaPort;
  store: ImportStore;
  /** Spool records per prepared batch and per write transaction (at most 1,000). */
  batchSize: number;
  /** Prepares a batch of spool lines in the worker pool (prepare-task.ts). */
  prepare(input: PrepareInput): Promise<PrepareResult>;
  /** Batches prepared ahead of the one being written (the pool's threads). */
  prepareAhead?: number;
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
/** A URL for a warning: any user:password part is left out. */
const withoutCredentials = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1');
const messageOf = (err: unknown) => (err as Error)?.message ?? String(err);

/**
 * Writes the spool file's entities into their target collections. The spool is read line by line
 * (readline, paused while the writes catch up); each batch of lines is prepared in the worker pool
 * (prepare-task.ts: mapped, coerced, checked against the schema, rich text sanitised, checksummed), a
 * few batches ahead of the one being written, so the event loop only writes: per batch and entity one
 * ledger query, then one short transaction (the content SDK's insertPrepared: multi-row INSERTs of the
 * entries, their revisions and their ledger rows). A refused batch is retried entity by entity so one
 * bad record fails alone. The delta ledger (import_links): a record imported before is skipped (add)
 * or updated when its data changed (merge).
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
  const infos = new Map<string, CollectionInfo>();
  for (const name of new Set(targets.values())) infos.set(name, await content.collections.get(name));
  const mappings = new Map<string, Map<string, string>>();
  for (const m of plan.fieldMappings)
    if (m.targetField) (mappings.get(m.entity) ?? mappings.set(m.entity, new Map()).get(m.entity)!).set(m.sourceField, m.targetField);
  const prepareTargets: Record<string, PrepareTarget> = {};
  for (const [entity, collection] of targets) {
    const info = infos.get(collection)!;
    const map = Object.fromEntries(mappings.get(entity) ?? []);
    const media = map.file && info.fields.find((f) => f.name === map.file)?.type === 'media' ? map.file : undefined;
    prepareTargets[entity] = {
      collection,
      version: info.version,
      fields: info.fields as PrepareTarget['fields'],
      map,
      ...(media ? { mediaField: media } : {}),
      source: info.fields.some((f) => f.name === SOURCE_FIELD),
      ...(plan.operations.find((o) => o.sourceType === entity)?.statuses === 'draft' ? { draft: true } : {}),
    };
  }
  const workRoot = await realpath(input.workDir);
  const importedAt = new Date().toISOString();

  /** Remote attachments fetched in this run, by URL (one media record per URL). */
  const fetched = new Map<string, string | null>();
  let fetchCount = 0;
  const remoteMedia = async (e: MediaRecord, url: string): Promise<string | null> => {
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

  const mediaFor = async (e: MediaRecord): Promise<string | null> => {
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

  /** An attachment's record: its media first (as before the bulk path), then its body. */
  const attachmentBody = async (item: PreparedItem): Promise<Record<string, unknown>> => {
    const body = { ...item.body };
    const media = prepareTargets[item.entity]?.mediaField;
    if (media) {
      const id = await mediaFor(item);
      if (id) body[media] = id;
    } else await mediaFor(item);
    return body;
  };
  /** The body of a prepared row for the one-by-one path (the API checks and sanitises it again). */
  const bodyOf = (item: PreparedItem): Record<string, unknown> => {
    if (item.body) return item.body;
    const body: Record<string, unknown> = { status: item.row!.status };
    for (const [k, v] of Object.entries(item.row!.entry)) if (v !== null) body[k] = v;
    return body;
  };

  const link = async (e: PreparedItem, collection: string, entryId: string, transaction?: unknown) => {
    const where = { tenant_id: tenantId, collection, format: plan.format, entity: e.entity, external_id: e.key };
    const t = transaction ? { transaction: transaction as never } : {};
    const job_id = input.jobId ?? null;
    const [n] = await store.links.update({ entry_id: entryId, checksum: e.checksum, updated_at: Date.now(), job_id }, { where, ...t });
    if (n === 0)
      await store.links
        .create({ ...where, entry_id: entryId, checksum: e.checksum, updated_at: Date.now(), job_id }, t)
        .catch(() => undefined);
  };

  const flushEntity = async (entity: string, group: PreparedItem[]) => {
    const r = (results[entity] ??= { imported: 0, failed: 0, skipped: 0, updated: 0 });
    const collection = targets.get(entity);
    if (!collection) {
      for (let i = 0; i < group.length; i++) skip(r, 'notMapped');
      return;
    }
    const entries = content.entries(collection);
    const links = await store.linksFor(
      tenantId,
      plan.format,
      entity,
      collection,
      group.map((e) => e.key),
    );
    // A record imported before whose entry was deleted since is imported again (the ledger only remembers).
    const alive = await entries.existing([...new Set([...links.values()].map((l) => l.entry_id))]);
    const creates: PreparedItem[] = [];
    const seen = new Set<string>();
    const fail = (e: PreparedItem, err: unknown) => {
      r.failed++;
      warn(`${entity} ${e.externalId}: ${messageOf(err)}`, e.line);
    };
    const createOne = async (e: PreparedItem, body: Record<string, unknown>) => {
      try {
        const entry = await entries.create(body);
        input.created?.push({ collection, id: entry._id });
        await link(e, collection, entry._id);
        r.imported++;
      } catch (err) {
        fail(e, err);
      }
    };
    for (const e of group) {
      const prior = links.get(e.key);
      const known = prior && alive.has(prior.entry_id) ? prior : undefined;
      if (seen.has(e.key)) {
        warn(`${entity} ${e.externalId}: the same external id appears twice, later one skipped`, e.line);
        skip(r, 'duplicateInFile');
        continue;
      }
      seen.add(e.key);
      if (known && plan.mode === 'add') {
        skip(r, 'alreadyImported');
        continue;
      }
      if (known && known.checksum === e.checksum) {
        skip(r, 'unchanged');
        continue;
      }
      for (const note of e.notes ?? []) warn(`${e.entity} ${e.externalId}: ${note}`, e.line);
      let body: Record<string, unknown> | undefined;
      try {
        if (e.file) body = await attachmentBody(e);
        if (known) {
          try {
            await entries.update(known.entry_id, body ?? bodyOf(e));
            await link(e, collection, known.entry_id);
            r.updated++;
            r.imported++;
            continue;
          } catch (err) {
            if ((err as { code?: string }).code !== 'ENTRY_NOT_FOUND') throw err;
          }
        }
      } catch (err) {
        fail(e, err);
        continue;
      }
      if (body) await createOne(e, body);
      else if (e.invalid) fail(e, { message: e.invalid });
      else creates.push(e);
    }
    if (!creates.length) return;
    const info = infos.get(collection)!;
    try {
      const made = await entries.insertPrepared(
        { version: info.version, fields: info.fields.map((f) => f.name), rows: creates.map((c) => c.row!) },
        {
          // The ledger rows in the entries' own transaction: an entry is never left without its source id.
          inTransaction: async (transaction, rows) => {
            const now = Date.now();
            const fresh = rows.flatMap((entry, i) => (links.has(creates[i]!.key) ? [] : [{ entry, c: creates[i]! }]));
            await store.insertLinks(
              fresh.map(({ entry, c }) => ({
                tenant_id: tenantId,
                format: plan.format,
                entity: c.entity,
                external_id: c.key,
                collection,
                entry_id: entry._id,
                checksum: c.checksum,
                updated_at: now,
                job_id: input.jobId ?? null,
              })),
              transaction as Transaction,
            );
            for (const [i, entry] of rows.entries())
              if (links.has(creates[i]!.key)) await link(creates[i]!, collection, entry._id, transaction);
          },
        },
      );
      for (const entry of made) input.created?.push({ collection, id: entry._id });
      r.imported += made.length;
    } catch {
      // The transaction was refused (a unique field, a changed schema): entity by entity, so a bad record fails alone and is named.
      for (const c of creates) await createOne(c, bodyOf(c));
    }
  };

  const total = plan.operations.reduce((n, o) => n + o.count, 0);
  let processed = input.resume?.processed ?? 0;
  let toSkip = processed;
  let stopped = false;
  const write = async (batch: { items: PreparedItem[]; warnings: RunOutcome['warnings'] }) => {
    for (const w of batch.warnings) warn(w.message, w.line);
    const groups = new Map<string, PreparedItem[]>();
    for (const e of batch.items) (groups.get(e.entity) ?? groups.set(e.entity, []).get(e.entity)!).push(e);
    for (const [entity, group] of groups) await flushEntity(entity, group);
    processed += batch.items.length;
    await input.progress(processed, total);
    if (input.shouldStop?.()) stopped = true;
  };
  const common = {
    format: plan.format,
    importedAt,
    mode: plan.mode,
    fetchRemote: Boolean(input.fetchRemote),
    targets: prepareTargets,
    sourceField: SOURCE_FIELD,
  };
  // Batches being prepared in the pool, in spool order; their results are written one after the other.
  const ahead: Array<Promise<{ items: PreparedItem[]; warnings: RunOutcome['warnings'] }>> = [];
  const submit = (lines: string[], firstLine: number) => {
    const task = input.prepare({ ...common, lines, firstLine }).then((res) => {
      if (!res.ok) throw new Error(`the import's records could not be prepared: ${res.issues.map((i) => i.message).join('; ')}`);
      return res.value;
    });
    task.catch(() => undefined); // awaited in order below; a run that stops first leaves it
    ahead.push(task);
  };
  const depth = Math.max(1, input.prepareAhead ?? 2);
  const batchSize = Math.max(1, Math.min(1000, input.batchSize));
  const lines = createInterface({ input: createReadStream(input.spoolPath, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  let chunk: string[] = [];
  let first = 1;
  try {
    for await (const line of lines) {
      n++;
      if (toSkip > 0) {
        // Written before the interruption: passed over (counting valid records, as they were counted).
        if (!line.trim()) continue;
        if (parseEntity(line)) toSkip--;
        else warn(`spool line ${n} is not a valid entity, skipped`);
        continue;
      }
      if (!chunk.length) first = n;
      chunk.push(line);
      if (chunk.length < batchSize) continue;
      submit(chunk, first);
      chunk = [];
      if (ahead.length > depth) await write(await ahead.shift()!);
      if (stopped) break;
    }
    if (!stopped && chunk.length) submit(chunk, first);
    while (!stopped && ahead.length) await write(await ahead.shift()!);
  } finally {
    lines.close();
  }
  if (!stopped && plan.links?.length) await resolveLinks(input, warn);
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
