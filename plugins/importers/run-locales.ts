/**
 * Records with a language (issue 36; ImportedEntity.locale): a source entity in several languages is one entry.
 * The record whose language the plan maps onto the default locale (or a record without a language) writes the
 * entry's own values; any other language's record writes that locale's version through the content SDK's
 * localized write (`entries.update(id, data, {locale})`), its status that version's status. The first record of an
 * entity that has no entry yet creates it (its values are the entry's until the default locale's record comes).
 *
 * Shared and localized fields: a field whose value differs between languages becomes `localized: true` in the
 * target collection (a schema change, needs collections:manage; a field that cannot be localized, unique or with an
 * inverse, keeps the default's value and the record a warning); a field equal in every language stays shared and is
 * not written into the locale's version. When the default locale's record comes after another language created the
 * entry, the values it replaces are first kept as that language's own (so they are never overwritten).
 *
 * The ledger has one row per record and locale (import_links.locale: the installation locale, '' for a record
 * without a language): a re-import skips (add) or updates (merge) each language on its own.
 */
import { isDeepStrictEqual } from 'node:util';
import { SOURCE_FIELD } from './field-names.js';
import type { PreparedItem } from './prepare-batch.js';
import { countSkip, messageOf, type RunContext } from './run-context.js';
import type { EntityResult } from './runner.js';
import type { LinkRow } from './store.js';
import type { LocalClient } from '../content/public.js';

type Entries = ReturnType<LocalClient['entries']>;

/** Where a record's language goes: the installation locale, whether that is the default, or nowhere. */
export interface LocaleTarget {
  /** The installation locale ('' for a record without a language). */
  code: string;
  /** The record writes the entry's own values (no language, or the default locale). */
  writesRow: boolean;
}

/** The plan's languages as the run uses them: source code -> target (null: skipped). */
export function localeTargets(run: RunContext): Map<string, LocaleTarget | null> {
  const out = new Map<string, LocaleTarget | null>();
  for (const l of run.input.plan.locales ?? [])
    out.set(l.source, l.action === 'skip' || !l.target ? null : { code: l.target, writesRow: l.target === run.input.plan.defaultLocale });
  return out;
}

/** The body of a prepared record for the one-by-one path (the API checks and sanitises it again). */
export function bodyOf(item: PreparedItem): Record<string, unknown> {
  if (item.body) return item.body;
  const body: Record<string, unknown> = { status: item.row!.status };
  for (const [k, v] of Object.entries(item.row!.entry)) if (v !== null) body[k] = v;
  return body;
}

/** One entity's records with a language, in one batch. */
export interface LocaleBatch {
  run: RunContext;
  entity: string;
  collection: string;
  entries: Entries;
  r: EntityResult;
  /** Every ledger row of the batch's external ids (each locale's), alive entries only. */
  rows: LinkRow[];
  targets: Map<string, LocaleTarget | null>;
  /** An attachment's body, its media stored first (run-media.ts). */
  attachmentBody: (item: PreparedItem) => Promise<Record<string, unknown>>;
}

/** Writes the records of a batch that carry a language, in the file's order (see the file's comment). */
export async function writeLocaleRecords(b: LocaleBatch, items: PreparedItem[]): Promise<void> {
  const seen = new Set<string>();
  for (const e of items) {
    // A record without a language among records with one writes the entry's own values (run-entities.ts).
    const target = e.locale ? b.targets.get(e.locale) : { code: '', writesRow: true };
    if (target === null || target === undefined) {
      countSkip(b.r, 'localeSkipped');
      continue;
    }
    const seenKey = `${e.key}\u0000${target.code}`;
    if (seen.has(seenKey)) {
      b.run.warn(
        `${b.entity} ${e.externalId}: the same external id and language (${e.locale ?? 'none'}) appear twice, later one skipped`,
        e.line,
      );
      countSkip(b.r, 'duplicateInFile');
      continue;
    }
    seen.add(seenKey);
    try {
      await writeOne(b, e, target);
    } catch (err) {
      b.r.failed++;
      b.run.warn(`${b.entity} ${e.externalId} (${e.locale}): ${messageOf(err)}`, e.line);
    }
  }
}

async function writeOne(b: LocaleBatch, e: PreparedItem, target: LocaleTarget): Promise<void> {
  const { run, r } = b;
  const mine = b.rows.filter((x) => x.external_id === e.key);
  const own = mine.find((x) => x.locale === target.code);
  const entryId = own?.entry_id ?? mine[0]?.entry_id;
  if (e.invalid && !entryId) throw new Error(e.invalid);
  for (const note of e.notes ?? []) run.warn(`${e.entity} ${e.externalId}: ${note}`, e.line);
  if (own) {
    if (run.input.plan.mode === 'add') return countSkip(r, 'alreadyImported');
    if (own.checksum === e.checksum) return countSkip(r, 'unchanged');
  }
  // A translated attachment: the same file is stored once per run (by URL), its media id then equal in every language.
  const body = e.file ? await b.attachmentBody(e) : e.body || e.row ? bodyOf(e) : {};
  let id = entryId;
  if (!id) {
    // The entity's first record: it creates the entry (its values are the entry's until the default locale's record comes).
    const entry = await b.entries.create(body);
    run.input.created?.push({ collection: b.collection, id: entry._id });
    id = entry._id;
    if (!target.writesRow) await b.entries.update(id, await localeBody(b, e, body, id), { locale: target.code });
  } else if (target.writesRow) {
    // The entry's own values: what it held from another language that differs is first kept as that language's.
    if (!own) await keepCreatorValues(b, e, body, id, mine);
    await b.entries.update(id, body);
  } else {
    await b.entries.update(id, await localeBody(b, e, body, id), { locale: target.code });
  }
  await recordLink(b, e, target.code, id, own);
  if (own) r.updated++;
  r.imported++;
  b.rows.push({ external_id: e.key, locale: target.code, entry_id: id } as LinkRow);
}

/** Fields whose record value differs from the entry's own (default locale) value, among the record's mapped fields. */
async function differing(
  b: LocaleBatch,
  e: PreparedItem,
  body: Record<string, unknown>,
  id: string,
): Promise<{ differ: string[]; current: Record<string, unknown> }> {
  const current = (await b.entries.get(id)) as unknown as Record<string, unknown>;
  const mine = e.row?.entry ?? body;
  const differ = Object.keys(body).filter(
    (f) => f !== 'status' && f !== SOURCE_FIELD && !isDeepStrictEqual(norm(mine[f] ?? body[f]), norm(current[f])),
  );
  return { differ, current };
}

const norm = (v: unknown) => (v === undefined ? null : v);

/**
 * The body of a locale's version: its values of the collection's localized fields (fields that differ from the
 * entry's own values become localized first), and its status.
 */
async function localeBody(b: LocaleBatch, e: PreparedItem, body: Record<string, unknown>, id: string): Promise<Record<string, unknown>> {
  const { differ } = await differing(b, e, body, id);
  const localized = await localize(b, e, differ);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (localized.has(k)) out[k] = v;
  if (body.status !== undefined) out.status = body.status;
  return out;
}

/**
 * Before the default locale's record replaces the entry's own values: the values another language wrote there
 * (the record that created the entry) that differ become that language's own (their fields localized).
 */
async function keepCreatorValues(
  b: LocaleBatch,
  e: PreparedItem,
  body: Record<string, unknown>,
  id: string,
  mine: LinkRow[],
): Promise<void> {
  const creator = mine.find((x) => x.locale && x.locale !== b.run.input.plan.defaultLocale);
  const { differ, current } = await differing(b, e, body, id);
  const localized = await localize(b, e, differ);
  if (!creator) return;
  const keep: Record<string, unknown> = {};
  for (const f of differ) if (localized.has(f) && current[f] !== undefined) keep[f] = current[f];
  // The row's status is the creator's until now: its version keeps it.
  if (Object.keys(keep).length) await b.entries.update(id, { ...keep, status: current.status }, { locale: creator.locale });
}

/** Makes these fields localized in the target collection (once); answers every localized field of it. */
async function localize(b: LocaleBatch, e: PreparedItem, fields: string[]): Promise<Set<string>> {
  const { run, collection } = b;
  const info = run.infos.get(collection)!;
  const can = (f: { unique?: boolean; inverseName?: string }) => !f.unique && !f.inverseName;
  const wanted = info.fields.filter((f) => fields.includes(f.name) && !f.localized);
  const refused = wanted.filter((f) => !can(f));
  for (const f of refused)
    run.warn(
      `${e.entity} ${e.externalId} (${e.locale}): '${f.name}' differs between languages but is unique or has an inverse, so it stays shared`,
      e.line,
    );
  const change = wanted.filter(can);
  if (change.length) {
    const names = new Set(change.map((f) => f.name));
    try {
      const updated = await run.input.content.collections.update(collection, {
        fields: info.fields.map((f) => (names.has(f.name) ? { ...f, localized: true } : f)) as never,
      });
      run.infos.set(collection, updated);
      for (const t of Object.values(run.prepareTargets))
        if (t.collection === collection) {
          t.version = updated.version;
          t.fields = updated.fields;
        }
      run.warn(`${collection}: ${[...names].join(', ')} differ between languages, so they are now localized fields`);
    } catch (err) {
      run.warn(
        `${e.entity} ${e.externalId} (${e.locale}): ${[...names].join(', ')} differ between languages but could not be made localized (${messageOf(err)}); they keep the default locale's values`,
        e.line,
      );
    }
  }
  return new Set(
    run.infos
      .get(collection)!
      .fields.filter((f) => f.localized)
      .map((f) => f.name),
  );
}

/** The record's ledger row (its locale's), new or updated. */
async function recordLink(b: LocaleBatch, e: PreparedItem, locale: string, entryId: string, own: LinkRow | undefined): Promise<void> {
  const { input, tenantId } = b.run;
  const where = { tenant_id: tenantId, collection: b.collection, format: input.plan.format, entity: e.entity, external_id: e.key, locale };
  const values = { entry_id: entryId, checksum: e.checksum, updated_at: Date.now(), job_id: input.jobId ?? null };
  if (own) await input.store.links.update(values, { where });
  else await input.store.links.create({ ...where, ...values });
}
