/**
 * node_cms, archive form: a Strapi 4/5 data-transfer export (`strapi export --no-encrypt`), a tar.gz
 * holding `metadata.json`, `schemas/`, `entities/`, `links/`, `configuration/` (`*.jsonl`) and
 * `assets/uploads/`. Extracted safely into the job folder, then read line by line.
 *
 * Entities: content types (`api::*`) by their schema's plural name (`api::article.article` ->
 * `articles`, `api::landing-page.landing-page` -> `landing_pages`); uploads (`plugin::upload.file`)
 * -> `attachments` with `file.path` = the extracted asset (absolute, under workDir). Everything else
 * (admin, users-permissions users/roles/permissions, i18n locales, folders, configuration) is skipped
 * with one warning: accounts and password hashes are never imported. Strapi 5 keeps a draft and a
 * published row per document: they collapse to one entity (the published row, status `published`).
 * externalId: `<singular>:<documentId or id>`, the same for every language of a document (Strapi 5); a localised
 * row's `locale` is the record's locale (the run writes a document's languages into one entry). Links become
 * relation/media values holding the target's externalId.
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { DEFAULT_IMPORT_LIMITS, readLines } from '../../workers/import/limits.js';
import { join } from 'node:path';
import type { ImportFieldKind, ImportParseInput } from '../importers/public.js';
import type { SpoolWriter } from '../../workers/import/spool-writer.js';
import { extractUpload, maxLineBytesOf } from './task-run.js';
import { plural, snake } from './names.js';
import { ReferenceLinks } from './reference-links.js';

interface Schema {
  uid: string;
  info?: { singularName?: string; pluralName?: string };
  options?: { draftAndPublish?: boolean };
  attributes?: Record<string, { type?: string; relation?: string; multiple?: boolean; private?: boolean }>;
}
interface Row {
  type: string;
  id: number | string;
  data: Record<string, unknown>;
}
interface Target {
  type: string;
  ref: number | string;
}

const SKIPPED_FIELDS = new Set(['documentId', 'createdBy', 'updatedBy', 'localizations']);
/** Upload bookkeeping of the source server, not content. */
const FILE_NOISE = new Set(['provider', 'provider_metadata', 'previewUrl', 'folderPath']);
const SECRET_FIELD = /^(password|resetPasswordToken|confirmationToken|registrationToken|resetPasswordCode)$/;
const SINGLE_RELATIONS = new Set(['oneToOne', 'manyToOne', 'morphToOne', 'oneWay']);
const FILE_TYPE = 'plugin::upload.file';

export const isStrapiContentType = (uid: string): boolean => uid.startsWith('api::') || uid === FILE_TYPE;

const KIND_OF: Record<string, ImportFieldKind> = {
  string: 'text',
  text: 'text',
  email: 'text',
  uid: 'text',
  enumeration: 'text',
  richtext: 'richtext',
  blocks: 'json',
  integer: 'number',
  biginteger: 'number',
  float: 'number',
  decimal: 'number',
  boolean: 'boolean',
  date: 'date',
  datetime: 'date',
  time: 'text',
  timestamp: 'date',
  json: 'json',
  component: 'json',
  dynamiczone: 'json',
  media: 'media',
  relation: 'relation',
};

/**
 * Reads a JSONL file line by line; a line that is not JSON becomes a warning with its number. A line
 * longer than `maxLineBytes` refuses the upload (ImportLimitError) before it is read whole.
 */
export async function eachJsonLine(
  path: string,
  label: string,
  writer: SpoolWriter,
  fn: (value: unknown, line: number) => Promise<void> | void,
  maxLineBytes = DEFAULT_IMPORT_LIMITS.maxLineBytes,
): Promise<void> {
  for await (const { text, line: n } of readLines(createReadStream(path, { encoding: 'utf8' }), maxLineBytes, `${label}: JSONL line`)) {
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      writer.warn(`${label} line ${n} is not valid JSON, skipped`, n);
      continue;
    }
    await fn(value, n);
  }
}

function entityNames(uid: string, schema: Schema | undefined): { entity: string; singular: string } {
  if (uid === FILE_TYPE) return { entity: 'attachments', singular: 'file' };
  const model = uid.split('.').pop() ?? uid;
  const singular = snake(schema?.info?.singularName ?? model);
  return { entity: snake(schema?.info?.pluralName ?? '') || plural(model), singular };
}

/** The export as extracted: its folder, its files, and the folder prefix its top level sits under. */
interface ExportTree {
  dir: string;
  files: Set<string>;
  prefix: string;
  entityFiles: string[];
  writer: SpoolWriter;
  maxLine: number;
  /** The `.jsonl` files of one top-level folder (schemas, links), sorted. */
  inRoot(folder: string): string[];
}

/** Owner row (`type|id`) -> field -> targets. */
type Links = Map<string, Map<string, Target[]>>;

/** Pass 1's answer: the externalId of every imported row, which row stands for each document, and the types skipped. */
interface RowChoice {
  rowExternal: Map<string, string>;
  chosen: Map<string, { rowKey: string; published: boolean }>;
  skipped: Map<string, number>;
}

export async function parseStrapiExport(input: ImportParseInput, writer: SpoolWriter): Promise<void> {
  const maxLine = maxLineBytesOf(input);
  const { dir, archive } = await extractUpload(input, writer);
  const entityFiles = archive.files.filter((f) => /(^|\/)entities\/[^/]+\.jsonl$/.test(f)).sort();
  if (!entityFiles.length) {
    if (archive.files.some((f) => f.endsWith('.enc')))
      return writer.block('the archive holds an encrypted Strapi export (.enc): not supported; export again with --no-encrypt');
    return writer.block(
      archive.error
        ? `the archive cannot be read: ${archive.error}`
        : 'not a Strapi data-transfer export: no entities/*.jsonl in the archive',
    );
  }
  const prefix = entityFiles[0].slice(0, entityFiles[0].lastIndexOf('entities/'));
  const inRoot = (folder: string) => archive.files.filter((f) => f.startsWith(`${prefix}${folder}/`) && f.endsWith('.jsonl')).sort();
  const tree: ExportTree = { dir, files: new Set(archive.files), prefix, entityFiles, writer, maxLine, inRoot };

  const version = readVersion(tree);
  if (!inRoot('links').length) writer.warn('the export has no links/ folder: relations and media links are not known');
  const schemas = await readSchemas(tree);
  const { links, componentLinks } = await readLinks(tree);
  const rows = await chooseRows(tree, schemas, links);
  const references = new ReferenceLinks();
  const { collapsed, missingAssets } = await writeRows(tree, schemas, links, rows, references);
  writer.links = references.links();

  if (rows.skipped.size) {
    const list = [...rows.skipped].map(([t, n]) => `${n} ${t}`).join(', ');
    writer.warn(`skipped Strapi internal types (accounts, permissions and credentials are never imported): ${list}`);
  }
  if (collapsed) writer.warn(`${collapsed} draft row(s) of documents that also have a published version were folded into that entry`);
  if (componentLinks)
    writer.warn(`${componentLinks} link(s) held by components (media or relations inside dynamic zones) were not attached`);
  if (missingAssets)
    writer.warn(`${missingAssets} upload(s) have no file in assets/uploads and no absolute URL: only their metadata is imported`);
  if (version && !/^[45]\./.test(version)) writer.warn(`Strapi ${version} export: only Strapi 4 and 5 exports are known, check the result`);
  if (rows.rowExternal.size === 0) writer.block('the export holds no content entries (only Strapi internal types)');
}

/** metadata.json: the Strapi version (a hand-repacked archive may lack it). */
function readVersion({ dir, files, prefix, writer }: ExportTree): string | null {
  const metaPath = join(dir, `${prefix}metadata.json`);
  if (!files.has(`${prefix}metadata.json`) || statSync(metaPath).size >= 1024 * 1024) {
    writer.warn('the export has no metadata.json (a repacked archive?): Strapi version unknown');
    return null;
  }
  try {
    return String((JSON.parse(readFileSync(metaPath, 'utf8')) as { strapi?: { version?: unknown } }).strapi?.version ?? '') || null;
  } catch {
    writer.warn('metadata.json is not valid JSON');
    return null;
  }
}

/** Reads every line of the given export files, in order. */
async function eachLineOf(
  tree: ExportTree,
  files: string[],
  fn: (value: unknown, line: number, file: string) => Promise<void> | void,
): Promise<void> {
  for (const f of files) await eachJsonLine(join(tree.dir, f), f, tree.writer, (v, line) => fn(v, line, f), tree.maxLine);
}

async function readSchemas(tree: ExportTree): Promise<Map<string, Schema>> {
  const schemas = new Map<string, Schema>();
  await eachLineOf(tree, tree.inRoot('schemas'), (v) => {
    const s = v as Schema;
    if (typeof s?.uid === 'string') schemas.set(s.uid, s);
  });
  return schemas;
}

/**
 * links/: each link's owner row and field, and its target. A link from an upload's `related` field is
 * read the other way round (the content row owns the media); links held by components are only counted.
 */
async function readLinks(tree: ExportTree): Promise<{ links: Links; componentLinks: number }> {
  const links: Links = new Map();
  let componentLinks = 0;
  await eachLineOf(tree, tree.inRoot('links'), (v) => {
    const l = v as { left?: Target & { field?: string }; right?: Target & { field?: string } };
    if (!l?.left || !l.right) return;
    let owner: Target & { field?: string } = l.left;
    let target: Target = l.right;
    if (l.left.type === FILE_TYPE && l.left.field === 'related') {
      owner = l.right;
      target = l.left;
    }
    // `localizations` (Strapi 4) groups a document's languages (chooseRows); it is no field.
    if (!owner.field || (SKIPPED_FIELDS.has(owner.field) && owner.field !== 'localizations')) return;
    if (!owner.type.includes('::')) {
      componentLinks++;
      return;
    }
    if (!isStrapiContentType(owner.type)) return;
    const key = `${owner.type}|${owner.ref}`;
    const fields = links.get(key) ?? new Map<string, Target[]>();
    links.set(key, fields);
    fields.set(owner.field, [...(fields.get(owner.field) ?? []), { type: target.type, ref: target.ref }]);
  });
  return { links, componentLinks };
}

const isRow = (v: unknown): v is Row => {
  const r = v as Row;
  return typeof r?.type === 'string' && (typeof r.id === 'number' || typeof r.id === 'string') && !!r.data && typeof r.data === 'object';
};

/** A localised row's language (Strapi's i18n `locale`), when it has one. */
const localeOf = (row: Row): string | undefined => (typeof row.data.locale === 'string' && row.data.locale ? row.data.locale : undefined);

/** Pass 1: the externalId of every imported row, and which row stands for each document (the published one). */
async function chooseRows(tree: ExportTree, schemas: Map<string, Schema>, links: Links): Promise<RowChoice> {
  const rows: RowChoice = { rowExternal: new Map(), chosen: new Map(), skipped: new Map() };
  const externalOf = (row: Row): string => {
    const { singular } = entityNames(row.type, schemas.get(row.type));
    // Strapi 4 gives each language its own row, linked by `localizations`: the group is known by its smallest id.
    const group = links.get(`${row.type}|${row.id}`)?.get('localizations') ?? [];
    const ids = [row.id, ...group.filter((t) => t.type === row.type).map((t) => t.ref)];
    const first = ids.every((x) => /^\d+$/.test(String(x))) ? String(Math.min(...ids.map(Number))) : ids.map(String).sort()[0]!;
    const docId = typeof row.data.documentId === 'string' ? row.data.documentId : first;
    return `${singular}:${docId}`;
  };
  await eachLineOf(tree, tree.entityFiles, (v, line, f) => {
    if (!isRow(v)) return void tree.writer.warn(`${f} line ${line} is not a Strapi entity ({type, id, data}), skipped`, line);
    if (!isStrapiContentType(v.type)) return void rows.skipped.set(v.type, (rows.skipped.get(v.type) ?? 0) + 1);
    const rowKey = `${v.type}|${v.id}`;
    const ext = externalOf(v);
    rows.rowExternal.set(rowKey, ext);
    const published = v.data.publishedAt !== null && v.data.publishedAt !== undefined;
    const chosenKey = `${ext}\u0000${localeOf(v) ?? ''}`;
    const current = rows.chosen.get(chosenKey);
    if (!current || (published && !current.published)) rows.chosen.set(chosenKey, { rowKey, published });
  });
  return rows;
}

/** Pass 2: writes the chosen rows; counts the rows folded into their document and the uploads without a file. */
async function writeRows(
  tree: ExportTree,
  schemas: Map<string, Schema>,
  links: Links,
  rows: RowChoice,
  references: ReferenceLinks,
): Promise<{ collapsed: number; missingAssets: number }> {
  const counts = { collapsed: 0, missingAssets: 0 };
  await eachLineOf(tree, tree.entityFiles, async (v, line) => {
    if (!isRow(v) || !isStrapiContentType(v.type)) return;
    const rowKey = `${v.type}|${v.id}`;
    const ext = rows.rowExternal.get(rowKey)!;
    const locale = localeOf(v);
    const chosenKey = `${ext}\u0000${locale ?? ''}`;
    if (rows.chosen.get(chosenKey)?.rowKey !== rowKey) {
      counts.collapsed++;
      return;
    }
    const schema = schemas.get(v.type);
    const attrs = schema?.attributes ?? {};
    const { entity } = entityNames(v.type, schema);
    const { data, kinds } = rowFields(v, attrs);
    linkFields(links.get(rowKey), attrs, rows.rowExternal, data, kinds);
    // A relation to content types becomes a relation to their collection (reference-links.ts); media stays as before.
    for (const [field, targets] of links.get(rowKey) ?? [])
      if (kinds[field] === 'relation' && field !== 'localizations')
        references.note(
          entity,
          field,
          Array.isArray(data[field]),
          targets.map((t) =>
            isStrapiContentType(t.type) && t.type !== FILE_TYPE ? entityNames(t.type, schemas.get(t.type)).entity : null,
          ),
        );
    let status: 'draft' | 'published' | undefined;
    if (schema?.options?.draftAndPublish) status = rows.chosen.get(chosenKey)!.published ? 'published' : 'draft';
    const file = v.type === FILE_TYPE ? uploadFile(tree, v) : undefined;
    if (file && !file.path && !file.url) counts.missingAssets++;
    await tree.writer.write(
      { entity, externalId: ext, data, ...(locale ? { locale } : {}), ...(status ? { status } : {}), ...(file ? { file } : {}), line },
      kinds,
    );
  });
  return counts;
}

/** A row's own fields, without Strapi's bookkeeping and secrets, and the kinds its schema gives them. */
function rowFields(v: Row, attrs: NonNullable<Schema['attributes']>) {
  const data: Record<string, unknown> = {};
  const kinds: Record<string, ImportFieldKind> = {};
  for (const [name, value] of Object.entries(v.data)) {
    if (SKIPPED_FIELDS.has(name) || SECRET_FIELD.test(name) || attrs[name]?.type === 'password') continue;
    // The language is the record's locale (localeOf), not a field.
    if (name === 'locale' || name === 'localizations') continue;
    if (v.type === FILE_TYPE && FILE_NOISE.has(name)) continue;
    data[name] = value;
    const kind = attrs[name]?.type ? KIND_OF[attrs[name].type!] : undefined;
    if (kind && kind !== 'relation' && kind !== 'media') kinds[name] = kind;
  }
  return { data, kinds };
}

/** The row's links as relation/media fields holding the targets' externalIds (one for a single relation). */
function linkFields(
  fields: Map<string, Target[]> | undefined,
  attrs: NonNullable<Schema['attributes']>,
  rowExternal: Map<string, string>,
  data: Record<string, unknown>,
  kinds: Record<string, ImportFieldKind>,
): void {
  for (const [field, targets] of fields ?? []) {
    if (field === 'localizations') continue;
    const ids = [...new Set(targets.map((t) => rowExternal.get(`${t.type}|${t.ref}`)).filter((x): x is string => !!x))];
    const attr = attrs[field];
    const single = attr ? (attr.type === 'media' ? attr.multiple !== true : SINGLE_RELATIONS.has(attr.relation ?? '')) : false;
    if (!ids.length && attr?.type !== 'media' && !targets.some((t) => isStrapiContentType(t.type))) continue;
    data[field] = single ? (ids[0] ?? null) : ids;
    kinds[field] = attr?.type === 'media' || targets.every((t) => t.type === FILE_TYPE) ? 'media' : 'relation';
  }
}

/** An upload row's file: the extracted asset when the archive holds it, else its absolute URL, else neither. */
function uploadFile({ dir, files, prefix }: ExportTree, v: Row): { path?: string; url?: string; filename: string; mimeType?: string } {
  const stored =
    typeof v.data.hash === 'string' && typeof v.data.ext === 'string' ? `${prefix}assets/uploads/${v.data.hash}${v.data.ext}` : null;
  const url = typeof v.data.url === 'string' ? v.data.url : null;
  const filename = typeof v.data.name === 'string' ? v.data.name : (url?.split('/').pop() ?? `file-${v.id}`);
  const mimeType = typeof v.data.mime === 'string' ? v.data.mime : undefined;
  const path = stored && files.has(stored) && existsSync(join(dir, stored)) ? join(dir, stored) : undefined;
  const remote = url && /^https?:\/\//i.test(url) ? url : undefined;
  return { filename, ...(path ? { path } : {}), ...(!path && remote ? { url: remote } : {}), ...(mimeType ? { mimeType } : {}) };
}
