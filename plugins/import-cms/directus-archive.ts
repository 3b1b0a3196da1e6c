/**
 * data_cms archives: a `.tar.gz` (or `.tar`) of several Directus item exports, one collection per file, optionally
 * with a schema snapshot. Since the archive holds the targets of the references, they become relations
 * (ImportParseSummary.links, through reference-links.ts as Drupal's and Strapi's do):
 * - a collection the snapshot describes: a field its `relations` name (M2O: `collection.field` ->
 *   `related_collection`; O2M: the alias `meta.one_field` of `related_collection` -> `collection`), when every value
 *   the items hold is the id of an item of the target collection in the archive;
 * - any other collection: a field whose values are all UUIDs of the items of exactly one collection in the archive
 *   (integer ids are too ambiguous without a snapshot).
 * Many when the values are lists (in their order). Anything else keeps its value as before.
 * A translations junction (`<parent>_id` + `languages_code`) is its parent's languages, as a lone one is
 * (directus-parse.ts): its rows are records of the parent entity with a `locale`, the parent's own items (without a
 * language) write the entry's values, and the parent's field listing the junction's rows (the `translations` alias) is
 * left out of the summary (so nothing is mapped to it).
 * Worker-side, no kernel imports.
 */
import { join } from 'node:path';
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import type { SpoolWriter } from '../../workers/import/spool-writer.js';
import { readDirectusDocument, snapshotFields } from './directus-parse.js';
import { isUuid } from './names.js';
import { ReferenceLinks } from './reference-links.js';
import { extractUpload } from './task-run.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Most ids and most referenced values remembered over the archive; past them a field is no relation. */
const MAX_IDS = 500_000;
const MAX_VALUES = 200_000;
/** A value that may be an id: an integer, or a short string without spaces. */
const ID_LIKE = /^[\w.:-]{1,64}$/;
const idLike = (v: unknown): v is string | number =>
  (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && ID_LIKE.test(v));

interface FieldValues {
  collection: string;
  field: string;
  many: boolean;
  /** Every value is a UUID (or a list of them). */
  uuid: boolean;
  /** false once a value could not be an id (text, an object) or the bound was passed. */
  ok: boolean;
  values: Set<string>;
}

/** The ids of each collection and the values each field holds, for the reference rules. */
export class DirectusReferences {
  private readonly ids = new Map<string, Set<string>>();
  private readonly fields = new Map<string, FieldValues>();
  private idCount = 0;
  private valueCount = 0;
  relations: Obj[] = [];
  /** Collections the snapshot describes (its rules, not the UUID rule, decide their fields). */
  readonly described = new Set<string>();

  noteItem(collection: string, id: string, data: Obj): void {
    const ids = this.ids.get(collection) ?? this.ids.set(collection, new Set()).get(collection)!;
    if (this.idCount < MAX_IDS && !ids.has(id)) {
      ids.add(id);
      this.idCount++;
    }
    for (const [field, value] of Object.entries(data)) {
      if (value === null || value === undefined) continue;
      const key = `${collection}\n${field}`;
      const f =
        this.fields.get(key) ?? this.fields.set(key, { collection, field, many: false, uuid: true, ok: true, values: new Set() }).get(key)!;
      if (!f.ok) continue;
      const list = Array.isArray(value) ? value : [value];
      if (Array.isArray(value)) f.many = true;
      if (!list.every(idLike) || this.valueCount + list.length > MAX_VALUES) {
        f.ok = false;
        this.valueCount -= f.values.size;
        f.values.clear();
        continue;
      }
      if (!list.every(isUuid)) f.uuid = false;
      for (const v of list) {
        const s = String(v);
        if (f.values.has(s)) continue;
        f.values.add(s);
        this.valueCount++;
      }
    }
  }

  /** The collection a snapshot relation names for a field: M2O on its own side, O2M through the alias. */
  private declared(collection: string, field: string): string | undefined {
    for (const r of this.relations) {
      if (r.collection === collection && r.field === field && typeof r.related_collection === 'string') return r.related_collection;
      if (r.related_collection === collection && isObj(r.meta) && r.meta.one_field === field && typeof r.collection === 'string')
        return r.collection;
    }
    return undefined;
  }

  /** The fields of `collection` whose every value is one of `ids` (a list of a folded junction's rows: its alias). */
  listing(collection: string, ids: Set<string>): string[] {
    const out: string[] = [];
    for (const f of this.fields.values())
      if (f.collection === collection && f.ok && f.values.size && [...f.values].every((v) => ids.has(v))) out.push(f.field);
    return out;
  }

  /** The one collection holding an id, or null (none, or several). */
  private holder(id: string): string | null {
    let found: string | null = null;
    for (const [collection, ids] of this.ids)
      if (ids.has(id)) {
        if (found) return null;
        found = collection;
      }
    return found;
  }

  /**
   * A single file's fields of UUIDs that are not its own items' ids (ImportParseSummary.earlierRefs): at most 50
   * fields of at most 1000 distinct values each.
   */
  unplaced(): NonNullable<ImportParseSummary['earlierRefs']> {
    const out: NonNullable<ImportParseSummary['earlierRefs']> = [];
    for (const f of this.fields.values()) {
      if (out.length >= 50) break;
      if (!f.ok || !f.uuid || !f.values.size || f.values.size > 1000) continue;
      const own = this.ids.get(f.collection);
      if ([...f.values].some((v) => own?.has(v))) continue;
      out.push({ entity: f.collection, field: f.field, ...(f.many ? { many: true } : {}), values: [...f.values] });
    }
    return out;
  }

  links(): NonNullable<ImportParseSummary['links']> {
    const refs = new ReferenceLinks();
    for (const f of this.fields.values()) {
      if (!f.ok || !f.values.size) continue;
      if (this.described.has(f.collection)) {
        const to = this.declared(f.collection, f.field);
        const ids = to ? this.ids.get(to) : undefined;
        if (to && ids)
          refs.note(
            f.collection,
            f.field,
            f.many,
            [...f.values].map((v) => (ids.has(v) ? to : null)),
          );
      } else if (f.uuid)
        refs.note(
          f.collection,
          f.field,
          f.many,
          [...f.values].map((v) => this.holder(v)),
        );
    }
    return refs.links();
  }
}

/** A Directus archive: every `.json` member (sorted), item exports as their collections, a snapshot as the schema. */
export async function parseDirectusArchive(
  input: ImportParseInput,
  writer: SpoolWriter,
): Promise<ImportParseSummary['fields'] | undefined> {
  const { dir, archive } = await extractUpload(input, writer);
  const files = archive.files.filter((f) => /\.json$/i.test(f)).sort();
  if (!files.length) return void writer.block('the archive holds no .json file of Directus items');
  const refs = new DirectusReferences();
  const options = { ...input.options };
  delete options.collection;
  let items = 0;
  let typed: ImportParseSummary['fields'] | undefined;
  const collections = new Map<string, string>();
  /** Translations junctions folded into their parents' records: junction -> parent, and the junction rows' ids. */
  const folded = new Map<string, { parent: string; ids: Set<string> }>();
  for (const name of files) {
    // Members are read as UTF-8 (the profile's container is the archive). A translations junction is its parent's
    // languages, as a lone one is (directus-parse.ts).
    const member = { ...input, path: join(dir, name), filename: name, options };
    const doc = await readDirectusDocument(member, writer, (c, id, data) => refs.noteItem(c, id, data), true);
    items += doc.items;
    if (doc.collection && doc.folded) folded.set(doc.folded, { parent: doc.collection, ids: doc.foldedIds });
    else if (doc.collection) {
      const earlier = collections.get(doc.collection);
      if (earlier) writer.warn(`${name} holds ${doc.collection} items as ${earlier} does: both are imported into ${doc.collection}`);
    }
    if (doc.collection) collections.set(doc.collection, collections.get(doc.collection) ?? name);
    if (doc.snapshot) {
      if (typed) {
        writer.warn(`${name} is a second schema snapshot: ignored`);
        continue;
      }
      typed = snapshotFields(writer, doc.lists, doc.directus, false);
      refs.relations = doc.lists.relations;
      for (const c of doc.lists.collections) if (typeof c.collection === 'string') refs.described.add(c.collection);
    } else if (!doc.items)
      writer.warn(doc.itemShaped ? `${name} holds no items` : `${name} is not a Directus item export or schema snapshot`);
  }
  if (!items) return void writer.block('the archive holds no Directus items');
  // A parent's list of its junction's rows (Directus's `translations` alias) is no field once they are its languages.
  const aliases = new Set<string>();
  for (const { parent, ids } of folded.values())
    for (const field of refs.listing(parent, ids)) {
      writer.forget(parent, field);
      aliases.add(`${parent}\n${field}`);
    }
  writer.links = refs.links().filter((l) => !aliases.has(`${l.entity}\n${l.field}`));
  for (const l of writer.links) writer.setKind(l.entity, l.field, 'relation');
  if (!typed) return undefined;
  for (const alias of aliases) {
    const [parent, field] = alias.split('\n') as [string, string];
    delete typed[parent]?.[field];
  }
  // A folded junction's fields are its parent's (in every language); its keys are not fields.
  for (const [junction, { parent }] of folded) {
    const own = typed[junction] ?? {};
    const into = (typed[parent] ??= {});
    for (const [field, kind] of Object.entries(own))
      if (field !== 'id' && field !== 'languages_code' && field !== `${parent}_id` && !into[field]) into[field] = kind;
  }
  return Object.fromEntries(Object.entries(typed).filter(([c]) => collections.has(c)));
}
