import { Op } from 'sequelize';
import { z } from 'zod';
import { hasPermission, hasScopedPermission, ruleLimits, type Identity } from '../../kernel/sdk.js';
import { hideFields, meetingWhere } from './entry-access.js';
import type { PopulatedMedia } from '../media/public.js';
import type { CollectionDefinition } from './collection-schema.js';
import type { LoadedCollection } from './collections-service.js';
import { toEntry, type Entry } from './entry-shape.js';
import type { FieldDefinition } from './field-types.js';
import { invalidQuery } from './list-filter.js';

/** The `populate` query parameter (API decisions, "Content model v2"). */
export const populateParam = z
  .string()
  .max(1000)
  .optional()
  .describe(
    'Comma list of relation and media fields to answer as objects instead of ids: dotted paths up to 3 levels (author.avatar), * for every relation and media field of the first level',
  );

/** Paths deeper than this are refused. */
export const POPULATE_DEPTH = 3;
const MAX_PATHS = 50;

/** What to populate below one collection: field name -> what to populate below its target. */
export interface PopulateTree {
  [field: string]: PopulateTree;
}

const populatable = (f: FieldDefinition) => f.type === 'relation' || f.type === 'media';

/**
 * Reads a `populate` parameter against the schemas: every segment must be a relation or media field (a media
 * field ends its path), at most 3 levels; anything else is a 400 naming the path. Null without one.
 */
export function parsePopulate(
  c: CollectionDefinition,
  text: string | undefined,
  lookup: (name: string) => CollectionDefinition | undefined,
): PopulateTree | null {
  if (text === undefined) return null;
  const paths = [...new Set(text.split(',').map((s) => s.trim()))].filter(Boolean);
  if (!paths.length) invalidQuery('populate', 'name at least one field');
  if (paths.length > MAX_PATHS) invalidQuery('populate', `at most ${MAX_PATHS} paths`);
  const tree: PopulateTree = {};
  for (const path of paths) {
    if (path === '*') {
      for (const f of c.fields.filter(populatable)) tree[f.name] ??= {};
      continue;
    }
    const segments = path.split('.');
    if (segments.length > POPULATE_DEPTH) invalidQuery('populate', `'${path}' is deeper than ${POPULATE_DEPTH} levels`);
    let at: CollectionDefinition | undefined = c;
    let node = tree;
    segments.forEach((name, i) => {
      const f = at?.fields.find((x) => x.name === name);
      if (!f || !populatable(f)) invalidQuery('populate', `'${path}': '${name}' is not a relation or media field`);
      if (f.type === 'media' && i < segments.length - 1)
        invalidQuery('populate', `'${path}': '${name}' is a media field and ends the path`);
      node = node[name] ??= {};
      at = f.type === 'relation' ? lookup(f.collection!) : undefined;
    });
  }
  return tree;
}

/** What populating needs: the collections, and the media plugin's lookup when it is there. */
export interface PopulateDeps {
  collection(name: string): Promise<LoadedCollection>;
  media(): { populated(tenantId: string, ids: string[], includePrivate: boolean): Promise<Map<string, PopulatedMedia>> } | undefined;
  /** The plain rows of `ids` in the tenant (published ones only when asked): see ListReader.byIds. */
  rows?(c: LoadedCollection, ids: string[], tenantId: string, publishedOnly: boolean): Promise<Array<Record<string, unknown>>>;
  /** Completes target entries as reads answer them (their inverse fields). */
  fill?(c: CollectionDefinition, entries: Entry[], identity: Identity): Promise<void>;
  /**
   * Gives target entries their values in `locale` (entry-locales.ts: fallbacks, `_locale`, `_locales`, that locale's
   * status) with one query per target collection with localized fields; `statusInLocale` says whether a target's
   * `status` then is its version's in that locale (not the row's), so published-only readers are filtered after it.
   */
  localise?(c: CollectionDefinition, entries: Entry[], tenantId: string, locale: string, publishedOnly: boolean): Promise<void>;
  statusInLocale?(c: CollectionDefinition, locale: string): boolean;
}

/** The ids a page's entries hold in `field` (one id, or a many-relation's list), each once. */
const idsOf = (entries: Entry[], field: string): string[] => [
  ...new Set(
    entries
      .flatMap((e) => (Array.isArray(e[field]) ? (e[field] as unknown[]) : [e[field]]))
      .filter((v): v is string => typeof v === 'string'),
  ),
];

/**
 * Replaces ids by objects in a page of entries (in place), one query per populated target (and level) whatever
 * the page size (the targets of one level read at once), with the caller's visibility: targets of a collection the caller may not read, entries
 * that are not published (for callers without content:write) and private media (for callers without
 * media:read) answer null (a many-relation leaves them out).
 */
export async function populate(
  deps: PopulateDeps,
  c: CollectionDefinition,
  entries: Entry[],
  tree: PopulateTree,
  identity: Identity,
  /** `?locale=` of the read (resolved: a code or `*`): targets are answered in it; absent: as stored (the default's values). */
  locale?: string,
): Promise<void> {
  // Fields read from the same place with the same nesting share one query: media fields, and relations to one
  // target collection (two relations to `people` are one IN query of both fields' ids).
  const groups = new Map<string, string[]>();
  for (const [name, below] of Object.entries(tree)) {
    const f = c.fields.find((x) => x.name === name)!;
    const key = f.type === 'media' ? 'media' : `${f.collection}|${JSON.stringify(below)}`;
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  // The groups are read at once (on MariaDB each on its own pooled connection; on SQLite queued on the one
  // connection without a round trip between them), then placed: every lookup reads the ids before any is replaced.
  const found = await Promise.all(
    [...groups.values()].map((names) => {
      const f = c.fields.find((x) => x.name === names[0])!;
      return lookUp(deps, f, [...new Set(names.flatMap((n) => idsOf(entries, n)))], tree[names[0]!]!, identity, locale);
    }),
  );
  [...groups.values()].forEach((names, i) => {
    for (const name of names) placeFound(entries, name, found[i]!);
  });
}

/** The objects of `ids` for field `f` (media, or entries of its target populated `below`) the caller may see. */
async function lookUp(
  deps: PopulateDeps,
  f: FieldDefinition,
  ids: string[],
  below: PopulateTree,
  identity: Identity,
  locale?: string,
): Promise<Map<string, unknown>> {
  if (!ids.length) return new Map();
  if (f.type === 'media')
    return (await deps.media()?.populated(identity.tenantId, ids, hasPermission(identity, 'media:read'))) ?? new Map();
  if (!hasScopedPermission(identity, 'content:read', f.collection!)) return new Map();
  const target = await deps.collection(f.collection!);
  const publishedOnly = !hasPermission(identity, 'content:write');
  const inLocale = locale !== undefined && deps.localise !== undefined;
  // In a locale whose status is the target's version's there, published-only readers get the entries published in
  // that locale: every row is read, and those not published there are left out once localised.
  const rowFilter = publishedOnly && !(inLocale && deps.statusInLocale?.(target, locale));
  const rows = deps.rows
    ? await deps.rows(target, ids, identity.tenantId, rowFilter)
    : ((await target.model.findAll({
        where: { id: { [Op.in]: ids }, tenant_id: identity.tenantId, ...(rowFilter ? { status: 'published' } : {}) },
        raw: true,
      })) as unknown as Array<Record<string, unknown>>);
  let targets = rows.map((r) => toEntry(target, r));
  // The caller's read rules of the target (entry-access.ts): only the entries its `where` lets it read, without hidden fields.
  const limits = ruleLimits(identity, target.name, 'read');
  if (limits?.where) {
    const meet = await meetingWhere(
      target,
      targets.map((e) => e._id),
      limits,
      { tenantId: identity.tenantId },
    );
    targets = targets.filter((e) => meet.has(e._id));
  }
  await deps.fill?.(target, targets, identity);
  if (inLocale) {
    await deps.localise!(target, targets, identity.tenantId, locale, publishedOnly);
    if (publishedOnly) targets = targets.filter((e) => e.status === 'published');
  }
  if (Object.keys(below).length) await populate(deps, target, targets, below, identity, locale);
  hideFields(targets, limits);
  return new Map(targets.map((e) => [e._id, e]));
}

/** Puts the found objects in place of the ids of field `name`: a many-relation keeps those found, in order; one id its object or null. */
function placeFound(entries: Entry[], name: string, found: Map<string, unknown>): void {
  for (const e of entries) {
    const v = e[name];
    if (Array.isArray(v)) e[name] = v.map((id) => found.get(String(id))).filter((x) => x !== undefined);
    else if (v !== null && v !== undefined) e[name] = found.get(String(v)) ?? null;
  }
}

/** The collections a populated answer shows besides its own, and whether it shows media. */
export function shownCollections(
  c: CollectionDefinition,
  tree: PopulateTree,
  lookup: (name: string) => CollectionDefinition | undefined,
): { collections: string[]; media: boolean } {
  const out = { collections: new Set<string>(), media: false };
  const walk = (at: CollectionDefinition | undefined, node: PopulateTree) => {
    for (const [name, below] of Object.entries(node)) {
      const f = at?.fields.find((x) => x.name === name);
      if (f?.type === 'media') out.media = true;
      if (f?.type !== 'relation') continue;
      if (f.collection !== c.name) out.collections.add(f.collection!);
      walk(lookup(f.collection!), below);
    }
  };
  walk(c, tree);
  return { collections: [...out.collections].sort(), media: out.media };
}
