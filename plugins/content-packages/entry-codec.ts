/**
 * Entries in package form (PackageEntry, see public.ts), shared by the export and the import side so a
 * checksum computed on one instance equals the one computed on another for the same content:
 * relation values become `{$ref: {collection, syncId}}` (a many-relation an array of them), media values `{$media: <media id>}`
 * (inside component and blocks values too), and the
 * checksum is the SHA-256 of the canonical JSON (keys sorted, safe-stable-stringify) of
 * `{slug, status, fields}` in that form. Entry ids, versions and timestamps are not part of it.
 */
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { Sequelize } from 'sequelize';
export { defaultLocaleCode } from '../content/public.js';
import {
  defaultLocaleCode,
  readDefaultLocaleTimes,
  readEntryLocaleVersions,
  type Entry,
  type EntryLocaleVersion,
  type FieldDefinition,
} from '../content/public.js';
import { eachNested, holdsComponents, mapComponentValue } from './component-refs.js';

export interface RefValue {
  $ref: { collection: string; syncId: string };
}
export interface MediaValue {
  $media: string;
}

export const isRef = (v: unknown): v is RefValue =>
  !!v && typeof v === 'object' && '$ref' in v && typeof (v as RefValue).$ref?.syncId === 'string';
export const isMedia = (v: unknown): v is MediaValue => !!v && typeof v === 'object' && typeof (v as MediaValue).$media === 'string';

/** An entry's versions in other locales in package form: locale -> {status, fields (only those the version has)}. */
export type PackageLocales = Record<string, { status: string; fields: Record<string, unknown> }>;

/**
 * SHA-256 hex of the canonical JSON of {slug, status, fields} (fields in package form), with `locales` (the entry's
 * versions in other locales) only when it has some: the checksum of an entry without versions is as before.
 */
export function entryChecksum(slug: string, status: string, fields: Record<string, unknown>, locales?: PackageLocales): string {
  const withLocales = locales && Object.keys(locales).length ? { locales } : {};
  return createHash('sha256')
    .update(stringify({ slug, status, fields, ...withLocales }) ?? '')
    .digest('hex');
}

/** The versions of an entry (API form, as content's readEntryLocaleVersions answers them) in package form. */
export function encodeLocales(
  fields: FieldDefinition[],
  versions: Record<string, { status: string; fields: Record<string, unknown> }> | undefined,
  syncIdOf: (collection: string, id: string) => string | null,
  nestedMedia?: Set<string>,
): PackageLocales | undefined {
  if (!versions || !Object.keys(versions).length) return undefined;
  const out: PackageLocales = {};
  for (const code of Object.keys(versions).sort()) {
    const v = versions[code]!;
    const own = fields.filter((f) => f.localized === true && Object.hasOwn(v.fields, f.name));
    // A version's media values go into the package's media manifest as nested ones do.
    for (const f of own) if (f.type === 'media' && v.fields[f.name] != null) nestedMedia?.add(String(v.fields[f.name]));
    out[code] = { status: v.status, fields: encodeFields(own, v.fields as unknown as Entry, syncIdOf, nestedMedia) };
  }
  return out;
}

/** One relation or media value in package form (a many-relation's dangling references left out). */
function encodeValue(f: FieldDefinition, v: unknown, syncIdOf: (collection: string, id: string) => string | null): unknown {
  if (f.type === 'media') return { $media: String(v) };
  if (Array.isArray(v)) {
    const refs: RefValue[] = [];
    for (const id of v) {
      const syncId = syncIdOf(f.collection!, String(id));
      if (syncId) refs.push({ $ref: { collection: f.collection!, syncId } });
    }
    return refs;
  }
  const syncId = syncIdOf(f.collection!, String(v));
  return syncId ? { $ref: { collection: f.collection!, syncId } } : null;
}

/**
 * The fields of an entry (API form, as EntriesService.toEntry gives it) in package form.
 * `syncIdOf(collection, id)` answers the sync id of a related entry (null: the reference is dangling
 * and is written as null). Relation and media values inside component and blocks values take the same
 * form (component-refs.ts); `nestedMedia` collects the media ids found there. Unknown keys of the entry
 * are ignored: only the schema's fields travel.
 */
export function encodeFields(
  fields: FieldDefinition[],
  entry: Entry,
  syncIdOf: (collection: string, id: string) => string | null,
  nestedMedia?: Set<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = entry[f.name];
    if (v === null || v === undefined) out[f.name] = null;
    else if (f.type === 'relation' || f.type === 'media') out[f.name] = encodeValue(f, v, syncIdOf);
    else if (holdsComponents(f))
      out[f.name] = mapComponentValue(f, v, (g, x) => {
        if (g.type === 'media') nestedMedia?.add(String(x));
        return encodeValue(g, x, syncIdOf);
      });
    else out[f.name] = v;
  }
  return out;
}

/** The ids an entry refers to per related collection (to resolve their sync ids in one query per page), inside components too. */
export function referencedIds(fields: FieldDefinition[], entries: Entry[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (f: FieldDefinition, v: unknown) => {
    if (f.type !== 'relation') return;
    let set = out.get(f.collection!);
    if (!set) out.set(f.collection!, (set = new Set()));
    for (const id of Array.isArray(v) ? v : [v]) set.add(String(id));
  };
  for (const f of fields) {
    if (f.type !== 'relation' && !holdsComponents(f)) continue;
    for (const e of entries) {
      const v = e[f.name];
      if (v === null || v === undefined) continue;
      if (f.type === 'relation') add(f, v);
      else eachNested(f, v, add);
    }
  }
  return out;
}

/**
 * The versions in other locales of a page of entries (none read for a collection without localized fields), and
 * their values as entry-like objects: relations inside them resolve with the entries' own. `withTimes`: also when
 * each locale's values of each entry last changed (`times`, the package's `localeUpdatedAt`: ISO 8601 per locale, the
 * default's recorded time else the entry's createdAt, as the answers' `_localeUpdatedAt`).
 */
export async function pageVersions(
  sequelize: Sequelize,
  c: { name: string; fields: FieldDefinition[] },
  tenantId: string,
  entries: Array<{ _id: unknown; createdAt?: unknown }>,
  withTimes = false,
): Promise<{ versions: Map<string, Record<string, EntryLocaleVersion>>; values: Entry[]; times: Map<string, Record<string, string>> }> {
  const ids = entries.map((e) => String(e._id));
  const localized = c.fields.some((f) => f.localized === true);
  const versions = localized
    ? await readEntryLocaleVersions(sequelize, c.name, tenantId, ids)
    : new Map<string, Record<string, EntryLocaleVersion>>();
  const times = new Map<string, Record<string, string>>();
  if (localized && withTimes && ids.length) {
    const code = await defaultLocaleCode(sequelize);
    const own = await readDefaultLocaleTimes(sequelize, { collection: c.name, tenantId, code }, ids);
    const iso = (t: number | undefined) => (t !== undefined && Number.isFinite(t) ? new Date(t).toISOString() : undefined);
    for (const e of entries) {
      const id = String(e._id);
      const at: Record<string, string> = { [code]: iso(own.get(id)) ?? String(e.createdAt) };
      for (const [locale, v] of Object.entries(versions.get(id) ?? {})) {
        const t = iso(v.valuesAt);
        if (t) at[locale] = t;
      }
      times.set(id, at);
    }
  }
  return { versions, values: [...versions.values()].flatMap((v) => Object.values(v).map((x) => x.fields as unknown as Entry)), times };
}
