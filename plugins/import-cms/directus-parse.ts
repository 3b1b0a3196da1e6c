/**
 * data_cms: Directus items (a bare array, as `/utils/export` and the template CLI write it, or the
 * `{data: [...]}` HTTP response) and the schema snapshot (`{version, directus, collections, fields,
 * relations}`).
 *
 * Items: the entity is the collection, which the items do not name: options.collection, else a
 * translations junction (`<parent>_id` + `languages_code`) gives `<parent>_translations`, else the
 * file's base name (its last `-`-separated word: `directus-simple-website-cms-posts.json` -> `posts`).
 * externalId: the item's `id`. `status`: published/active -> published; draft, in_review, archived,
 * inactive -> draft (the raw value stays in `status`). `user_created`/`user_updated` and fields holding
 * UUIDs (or arrays of them) are relation values; image/file-like names are media.
 * Languages: a lone translations file (a junction `<parent>_translations`: `<parent>_id` + `languages_code`) is
 * the parent's languages: its rows become records of the parent entity (`help_articles`), externalId the
 * parent's id, `locale` the row's `languages_code` (the row's own id, the parent id and the code are keys, not
 * fields); the run writes them into one entry per parent, each language into its locale. In an archive too (a
 * parent's own items file gives the entry's other fields; directus-archive.ts).
 * Snapshot: recognised, imports 0 items; each collection with a table appears in the summary with 0
 * entries and its fields typed from the snapshot (for scaffolding), plus a warning.
 */
import type { ImportFieldKind, ImportParseInput, ImportParseSummary } from '../importers/public.js';
import { looksLikeRichText, type SpoolWriter } from '../../workers/import/spool-writer.js';
import { walkJson } from './json-walk.js';
import { plainEncoding, maxLineBytesOf } from './task-run.js';
import { baseName, isUuid, MEDIA_NAME, snake } from './names.js';
import { detached } from '../../lib/text/detached.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

const PUBLISHED = new Set(['published', 'active', 'public', 'live']);
const DRAFT = new Set(['draft', 'in_review', 'review', 'archived', 'inactive', 'private', 'scheduled']);
const SYSTEM_RELATIONS = new Set(['user_created', 'user_updated']);

const SNAPSHOT_KIND: Record<string, ImportFieldKind> = {
  string: 'text',
  uuid: 'text',
  hash: 'text',
  csv: 'text',
  text: 'richtext',
  integer: 'number',
  bigInteger: 'number',
  float: 'number',
  decimal: 'number',
  boolean: 'boolean',
  timestamp: 'date',
  dateTime: 'date',
  date: 'date',
  time: 'text',
  json: 'json',
  geometry: 'json',
};

/** The parent's id field of a translations junction's row (`help_articles_id` beside `languages_code`), if it is one. */
export function translationParent(keys: string[]): string | null {
  if (!keys.includes('languages_code')) return null;
  return keys.find((k) => k.endsWith('_id') && k !== 'languages_code') ?? null;
}

export function directusCollection(input: ImportParseInput, firstKeys: string[], fold = false): string {
  const option = input.options?.collection;
  if (typeof option === 'string' && option) return snake(option);
  const parent = translationParent(firstKeys);
  if (parent) return fold ? snake(parent.slice(0, -3)) : `${parent.slice(0, -3)}_translations`;
  const base = baseName(input.filename)
    .split('-')
    .filter((w) => w && !/^\d+$/.test(w));
  return snake(base[base.length - 1] ?? '') || 'items';
}

/** Field kind a Directus value suggests beyond inferKind: foreign keys are UUIDs. */
function directusKind(name: string, value: unknown): ImportFieldKind | undefined {
  if (name === 'id') return undefined;
  if (SYSTEM_RELATIONS.has(name)) return 'relation';
  const uuids = isUuid(value) || (Array.isArray(value) && value.length > 0 && value.every(isUuid));
  if (!uuids) return undefined;
  return MEDIA_NAME.test(name) ? 'media' : 'relation';
}

/**
 * Summary fields typed from a snapshot's collections, fields and relations (collections with a table). Alone, the
 * snapshot's collections are counted (0 items) and a warning says it imports nothing; in an archive (`alone` false)
 * the warning says its relations are used.
 */
export function snapshotFields(
  writer: SpoolWriter,
  lists: Record<'collections' | 'fields' | 'relations', Obj[]>,
  directus: string,
  alone = true,
): ImportParseSummary['fields'] {
  const { collections, fields, relations } = lists;
  const tables = collections.filter((c) => isObj(c.schema) && typeof c.collection === 'string').map((c) => c.collection as string);
  const typed: ImportParseSummary['fields'] = {};
  for (const t of tables) {
    if (alone) writer.touch(t);
    typed[t] = {};
  }
  for (const f of fields) {
    const collection = f.collection as string;
    const name = f.field as string;
    if (!typed[collection] || typeof name !== 'string') continue;
    let kind: ImportFieldKind | undefined = SNAPSHOT_KIND[String(f.type)];
    const isRelation = relations.some(
      (r) =>
        (r.collection === collection && r.field === name) ||
        (isObj(r.meta) && r.meta.one_collection === collection && r.meta.one_field === name),
    );
    if (isRelation) kind = isRelationToFiles(relations, collection, name) ? 'media' : 'relation';
    if (kind) typed[collection][name] = kind;
  }
  const what = `Directus ${directus ? `${directus} ` : ''}schema snapshot (${tables.length} collections with tables, ${fields.length} fields, ${relations.length} relations)`;
  writer.warn(
    alone
      ? `this is a ${what}, not content: 0 items are imported; its field types can scaffold the collections`
      : `a ${what}: its relations decide which fields of its collections are relations; it imports no items`,
  );
  return typed;
}

function isRelationToFiles(relations: Obj[], collection: string, field: string): boolean {
  return relations.some((r) => r.collection === collection && r.field === field && r.related_collection === 'directus_files');
}

/** What one Directus JSON document held: its items (written), or a schema snapshot's lists. */
export interface DirectusDocument {
  items: number;
  /** The collection its items went into (null when it held none). */
  collection: string | null;
  snapshot: boolean;
  lists: Record<'collections' | 'fields' | 'relations', Obj[]>;
  directus: string;
  /** The document was an array or `{data}` (an item export, maybe empty). */
  itemShaped: boolean;
  /** A translations junction folded into its parent's records: the junction's own name (`help_articles_translations`). */
  folded: string | null;
  /** Its rows' own ids (at most FOLDED_IDS_MAX): a parent field listing them is the junction's alias, no field. */
  foldedIds: Set<string>;
}

const FOLDED_IDS_MAX = 100_000;

/**
 * Reads one Directus document (an item export or a schema snapshot) and writes its items; `onItem` sees each
 * written item's collection, id and values (the archive's reference rules, directus-archive.ts).
 */
export async function readDirectusDocument(
  input: ImportParseInput,
  writer: SpoolWriter,
  onItem?: (collection: string, id: string, data: Obj) => void,
  foldTranslations = false,
): Promise<DirectusDocument> {
  let entity: string | null = null;
  /** A lone translations file: the parent's id field (its rows are the parent's languages). */
  let parentField: string | null | undefined;
  let items = 0;
  const seen = new Set<string>();
  const foldedIds = new Set<string>();
  const relationFields = new Set<string>();
  const lists: Record<'collections' | 'fields' | 'relations', Obj[]> = { collections: [], fields: [], relations: [] };
  let directus = '';
  const walked = await walkJson(input.path, {
    maxDepth: input.maxDepth,
    maxTokenBytes: maxLineBytesOf(input),
    encoding: plainEncoding(input),
    select: (p) => {
      if (p.length === 1 && typeof p[0] === 'number') return 'item';
      if (p.length === 2 && p[0] === 'data' && typeof p[1] === 'number') return 'item';
      if (p.length === 2 && typeof p[1] === 'number' && (p[0] === 'collections' || p[0] === 'fields' || p[0] === 'relations')) return p[0];
      if (p.length === 1 && p[0] === 'directus') return 'directus';
      return null;
    },
    onTooDeep: (_l, p) => writer.warn(`record nested deeper than ${input.maxDepth} levels, skipped`, (p[p.length - 1] as number) + 1),
    onValue: async (label, value, p) => {
      if (label === 'directus') return void (directus = String(value));
      if (label !== 'item') return void (isObj(value) && lists[label as keyof typeof lists].push(value));
      const line = (p[p.length - 1] as number) + 1;
      items++;
      if (!isObj(value)) return void writer.warn(`item ${line} is not an object, skipped`, line);
      entity ??= directusCollection(input, Object.keys(value), foldTranslations);
      parentField ??= foldTranslations ? translationParent(Object.keys(value)) : null;
      const key = parentField ? value[parentField] : value.id;
      const locale = parentField && typeof value.languages_code === 'string' && value.languages_code ? value.languages_code : undefined;
      const id = typeof key === 'string' || typeof key === 'number' ? String(key) : null;
      if (id === null || (parentField && !locale))
        return void writer.warn(`item ${line} has no ${parentField ? `${parentField} and languages_code` : 'id'}, skipped`, line);
      const seenKey = locale ? `${id}\u0000${locale}` : id;
      if (seen.has(seenKey))
        return void writer.warn(`item ${line}: id ${id}${locale ? ` (${locale})` : ''} appears twice, the later copy was skipped`, line);
      seen.add(detached(seenKey));
      if (parentField && (typeof value.id === 'string' || typeof value.id === 'number') && foldedIds.size < FOLDED_IDS_MAX)
        foldedIds.add(String(value.id));
      const data: Obj = {};
      const kinds: Record<string, ImportFieldKind> = {};
      for (const [name, v] of Object.entries(value)) {
        if (name === 'id' || (parentField && (name === parentField || name === 'languages_code'))) continue;
        data[name] = v;
        const kind = directusKind(name, v);
        if (kind) {
          kinds[name] = kind;
          relationFields.add(name);
        } else if (looksLikeRichText(v)) {
          kinds[name] = 'richtext';
        } else if (relationFields.has(name) && (v === null || (Array.isArray(v) && v.length === 0))) {
          kinds[name] = MEDIA_NAME.test(name) ? 'media' : 'relation';
        }
      }
      const raw = typeof value.status === 'string' ? value.status : null;
      const status = raw && PUBLISHED.has(raw) ? 'published' : raw && DRAFT.has(raw) ? 'draft' : undefined;
      if (
        await writer.write(
          { entity: entity!, externalId: id, data, ...(locale ? { locale } : {}), ...(status ? { status } : {}), line },
          kinds,
        )
      )
        onItem?.(entity!, id, data);
    },
  });
  if (walked.error) writer.warn(`${input.filename}: not valid JSON (${walked.error}); ${items} item(s) read before the error`);
  const snapshot = walked.rootKind === 'object' && walked.topKeys.includes('directus') && walked.topKeys.includes('collections');
  const itemShaped = walked.rootKind === 'array' || walked.topKeys.includes('data');
  const folded = parentField ? `${parentField.slice(0, -3)}_translations` : null;
  return { items, collection: entity, snapshot, lists, directus, itemShaped, folded, foldedIds };
}

/** One Directus file: its items, or a schema snapshot (0 items, its field types for scaffolding). */
export async function parseDirectus(
  input: ImportParseInput,
  writer: SpoolWriter,
  onItem?: (collection: string, id: string, data: Obj) => void,
): Promise<ImportParseSummary['fields'] | undefined> {
  const doc = await readDirectusDocument(input, writer, onItem, true);
  if (doc.snapshot) return snapshotFields(writer, doc.lists, doc.directus);
  if (doc.items === 0)
    writer.block(doc.itemShaped ? 'the Directus export holds no items' : 'not a Directus item export or schema snapshot');
  return undefined;
}
