/**
 * The writes of an import run (runner.ts), per batch and entity: one ledger query decides what each record is
 * (a repeat, already imported, unchanged, an update, or new), then the new ones are inserted in one short
 * transaction with their ledger rows. A refused batch is retried entity by entity so one bad record fails alone.
 */
import type { Transaction } from 'sequelize';
import type { LocalClient } from '../content/public.js';
import type { PreparedItem } from './prepare-batch.js';
import { countSkip, emptyResult, messageOf, type RunContext } from './run-context.js';
import { attachmentBodies } from './run-media.js';
import type { EntityResult } from './runner.js';
import type { LinkRow } from './store.js';
import { bodyOf, localeTargets, writeLocaleRecords } from './run-locales.js';

/** Writes one entity's records of a prepared batch. */
export type EntityWriter = (entity: string, group: PreparedItem[]) => Promise<void>;

/** One entity's records of a batch being written: its target, its ledger rows and the entries still alive. */
interface EntityBatch {
  run: RunContext;
  entity: string;
  collection: string;
  entries: ReturnType<LocalClient['entries']>;
  r: EntityResult;
  links: Map<string, LinkRow>;
  alive: Set<string>;
}

/** The writer of a run (one per run: it stores the attachments it fetched once). */
export function entityWriter(run: RunContext): EntityWriter {
  const attachmentBody = attachmentBodies(run);
  const { input, tenantId } = run;
  const languages = localeTargets(run);
  return async (entity, all) => {
    const r = (run.results[entity] ??= emptyResult());
    const collection = run.targets.get(entity);
    if (!collection) {
      for (let i = 0; i < all.length; i++) countSkip(r, 'notMapped');
      return;
    }
    const entries = input.content.entries(collection);
    // Records with a language: one entry per source entity, each language into its locale (run-locales.ts).
    let group = all.filter((e) => !e.locale);
    const withLanguage = all.filter((e) => e.locale);
    if (withLanguage.length || (group.length && languages.size)) {
      const keys = [...new Set(all.map((e) => e.key))];
      const rows = await input.store.localeLinksFor(tenantId, input.plan.format, entity, collection, keys);
      const alive = await entries.existing([...new Set(rows.map((l) => l.entry_id))]);
      const live = rows.filter((l) => alive.has(l.entry_id));
      // A record without a language of an entity whose other records have one (a Directus article beside its
      // translations' rows): it writes that entry's own values, as the default locale's record does (run-locales.ts).
      const languaged = new Set([...withLanguage.map((e) => e.key), ...live.filter((l) => l.locale !== '').map((l) => l.external_id)]);
      const rowWriters = group.filter((e) => languaged.has(e.key));
      group = group.filter((e) => !languaged.has(e.key));
      // A new entity's only record of the batch, in the default locale, takes the bulk insert (a Drupal site in one
      // language); its ledger row names the locale.
      const known = new Set(live.map((l) => l.external_id));
      const perKey = new Map<string, number>();
      for (const e of withLanguage) perKey.set(e.key, (perKey.get(e.key) ?? 0) + 1);
      const slow: PreparedItem[] = [];
      for (const e of withLanguage) {
        const target = languages.get(e.locale!);
        if (target?.writesRow && perKey.get(e.key) === 1 && !known.has(e.key)) {
          e.ledgerLocale = target.code;
          group.push(e);
        } else slow.push(e);
      }
      slow.push(...rowWriters);
      if (slow.length)
        await writeLocaleRecords({ run, entity, collection, entries, r, rows: live, targets: languages, attachmentBody }, slow);
    }
    if (!group.length) return;
    const links = await input.store.linksFor(
      tenantId,
      input.plan.format,
      entity,
      collection,
      group.map((e) => e.key),
    );
    // A record imported before whose entry was deleted since is imported again (the ledger only remembers).
    const alive = await entries.existing([...new Set([...links.values()].map((l) => l.entry_id))]);
    const batch: EntityBatch = { run, entity, collection, entries, r, links, alive };
    const creates = await writeEach(batch, group, attachmentBody);
    if (creates.length) await insertCreates(batch, creates);
  };
}

/** Records its ledger row for an entry this run wrote (an update of the row the record had, else a new one). */
async function link(run: RunContext, e: PreparedItem, collection: string, entryId: string, transaction?: unknown) {
  const { input } = run;
  const where = {
    tenant_id: run.tenantId,
    collection,
    format: input.plan.format,
    entity: e.entity,
    external_id: e.key,
    locale: e.ledgerLocale ?? '',
  };
  const t = transaction ? { transaction: transaction as never } : {};
  const job_id = input.jobId ?? null;
  const [n] = await input.store.links.update({ entry_id: entryId, checksum: e.checksum, updated_at: Date.now(), job_id }, { where, ...t });
  if (n === 0)
    await input.store.links
      .create({ ...where, entry_id: entryId, checksum: e.checksum, updated_at: Date.now(), job_id }, t)
      .catch(() => undefined);
}

function fail(b: EntityBatch, e: PreparedItem, err: unknown): void {
  b.r.failed++;
  b.run.warn(`${b.entity} ${e.externalId}: ${messageOf(err)}`, e.line);
}

/** Creates one entry on its own (the API checks and sanitises its body again). */
async function createOne(b: EntityBatch, e: PreparedItem, body: Record<string, unknown>): Promise<void> {
  try {
    const entry = await b.entries.create(body);
    b.run.input.created?.push({ collection: b.collection, id: entry._id });
    await link(b.run, e, b.collection, entry._id);
    b.r.imported++;
  } catch (err) {
    fail(b, e, err);
  }
}

/**
 * Decides each record in order: skipped (a repeat in the file, already imported in mode add, unchanged), updated
 * (known and changed), created on its own (an attachment) or failed (invalid). Answers the records left for the
 * bulk insert.
 */
async function writeEach(
  b: EntityBatch,
  group: PreparedItem[],
  attachmentBody: (item: PreparedItem) => Promise<Record<string, unknown>>,
): Promise<PreparedItem[]> {
  const { run, entity, r } = b;
  const creates: PreparedItem[] = [];
  const seen = new Set<string>();
  for (const e of group) {
    const prior = b.links.get(e.key);
    const known = prior && b.alive.has(prior.entry_id) ? prior : undefined;
    if (seen.has(e.key)) {
      run.warn(`${entity} ${e.externalId}: the same external id appears twice, later one skipped`, e.line);
      countSkip(r, 'duplicateInFile');
      continue;
    }
    seen.add(e.key);
    if (known && run.input.plan.mode === 'add') {
      countSkip(r, 'alreadyImported');
      continue;
    }
    if (known && known.checksum === e.checksum) {
      countSkip(r, 'unchanged');
      continue;
    }
    for (const note of e.notes ?? []) run.warn(`${e.entity} ${e.externalId}: ${note}`, e.line);
    let body: Record<string, unknown> | undefined;
    try {
      if (e.file) body = await attachmentBody(e);
      if (known) {
        try {
          await b.entries.update(known.entry_id, body ?? bodyOf(e));
          await link(run, e, b.collection, known.entry_id);
          r.updated++;
          r.imported++;
          continue;
        } catch (err) {
          if ((err as { code?: string }).code !== 'ENTRY_NOT_FOUND') throw err;
        }
      }
    } catch (err) {
      fail(b, e, err);
      continue;
    }
    if (body) await createOne(b, e, body);
    else if (e.invalid) fail(b, e, { message: e.invalid });
    else creates.push(e);
  }
  return creates;
}

/** The new records of the batch in one short transaction (the content SDK's insertPrepared), with their ledger rows. */
async function insertCreates(b: EntityBatch, creates: PreparedItem[]): Promise<void> {
  const { run, collection, links } = b;
  const { input } = run;
  const info = run.infos.get(collection)!;
  try {
    const made = await b.entries.insertPrepared(
      { version: info.version, fields: info.fields.map((f) => f.name), rows: creates.map((c) => c.row!) },
      {
        // The ledger rows in the entries' own transaction: an entry is never left without its source id.
        inTransaction: async (transaction, rows) => {
          const now = Date.now();
          const fresh = rows.flatMap((entry, i) => (links.has(creates[i]!.key) ? [] : [{ entry, c: creates[i]! }]));
          await input.store.insertLinks(
            fresh.map(({ entry, c }) => ({
              tenant_id: run.tenantId,
              format: input.plan.format,
              entity: c.entity,
              external_id: c.key,
              collection,
              entry_id: entry._id,
              checksum: c.checksum,
              updated_at: now,
              job_id: input.jobId ?? null,
              locale: c.ledgerLocale ?? '',
            })),
            transaction as Transaction,
          );
          for (const [i, entry] of rows.entries())
            if (links.has(creates[i]!.key)) await link(run, creates[i]!, collection, entry._id, transaction);
        },
      },
    );
    for (const entry of made) input.created?.push({ collection, id: entry._id });
    b.r.imported += made.length;
  } catch {
    // The transaction was refused (a unique field, a changed schema): entity by entity, so a bad record fails alone and is named.
    for (const c of creates) await createOne(b, c, bodyOf(c));
  }
}
