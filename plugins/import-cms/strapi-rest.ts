/**
 * node_cms, JSON form: a saved Strapi REST response, `{data: [...], meta: {pagination}}`: v4 items
 * `{id, attributes: {..., rel: {data: {id, attributes}}}}`, v5 flat items `{id, documentId, ...}`.
 * The entity name is the file's base name (`articles.json` -> `articles`); options.entity overrides.
 * Nested relations become relation values (the target's documentId or id); nested uploads (objects
 * with `url` and `mime`) become `attachments` entities (absolute URL in `file.url`) and media values.
 */
import type { ImportFieldKind, ImportParseInput } from '../importers/public.js';
import type { SpoolWriter } from '../../workers/import/spool-writer.js';
import { walkJson } from './json-walk.js';
import { plainEncoding, maxLineBytesOf } from './task-run.js';
import { baseName, plural } from './names.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const isUpload = (v: Obj) => typeof v.url === 'string' && typeof v.mime === 'string';
const idOf = (v: Obj): string | null =>
  typeof v.documentId === 'string' ? v.documentId : typeof v.id === 'number' || typeof v.id === 'string' ? String(v.id) : null;

interface State {
  writer: SpoolWriter;
  files: Set<string>;
  relativeUrls: number;
}

/** A v4 `{data}` wrapper or a v5 nested object/array: the ids it points at, or null when it is not a relation. */
function relationOf(value: unknown): { items: Obj[]; many: boolean } | null {
  if (isObj(value) && 'data' in value && Object.keys(value).every((k) => k === 'data' || k === 'meta')) {
    const d = value.data;
    if (d === null) return { items: [], many: false };
    if (Array.isArray(d)) return d.every(isObj) ? { items: d.map(flatten), many: true } : null;
    return isObj(d) ? { items: [flatten(d)], many: false } : null;
  }
  if (isObj(value) && (typeof value.documentId === 'string' || isUpload(value)) && idOf(value)) return { items: [value], many: false };
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => isObj(v) && (typeof v.documentId === 'string' || isUpload(v)) && idOf(v))
  ) {
    return { items: value as Obj[], many: true };
  }
  return null;
}

/** v4 `{id, attributes}` -> `{id, ...attributes}`; v5 items are already flat. */
function flatten(item: Obj): Obj {
  return isObj(item.attributes) ? { id: item.id, ...item.attributes } : item;
}

async function writeUpload(upload: Obj, state: State): Promise<string> {
  const externalId = `file:${idOf(upload)}`;
  if (state.files.has(externalId)) return externalId;
  state.files.add(externalId);
  const url = upload.url as string;
  const absolute = /^https?:\/\//i.test(url);
  if (!absolute) state.relativeUrls++;
  const data: Obj = {};
  for (const k of ['name', 'alternativeText', 'caption', 'width', 'height', 'mime', 'size', 'url', 'ext', 'hash'])
    if (k in upload) data[k] = upload[k];
  await state.writer.write({
    entity: 'attachments',
    externalId,
    data,
    file: {
      filename: typeof upload.name === 'string' ? upload.name : (url.split('/').pop() ?? externalId),
      ...(absolute ? { url } : {}),
      mimeType: upload.mime as string,
    },
  });
  return externalId;
}

async function writeItem(raw: unknown, entity: string, line: number, state: State): Promise<void> {
  if (!isObj(raw)) return void state.writer.warn(`item ${line} is not an object, skipped`, line);
  const item = flatten(raw);
  const externalId = idOf(item);
  if (!externalId) return void state.writer.warn(`item ${line} has no id or documentId, skipped`, line);
  const data: Obj = {};
  const kinds: Record<string, ImportFieldKind> = {};
  for (const [name, value] of Object.entries(item)) {
    if (name === 'id' || name === 'documentId') continue;
    const rel = relationOf(value);
    if (!rel) {
      data[name] = value;
      continue;
    }
    const ids: string[] = [];
    let media = rel.items.length > 0;
    for (const target of rel.items) {
      if (isUpload(target)) ids.push(await writeUpload(target, state));
      else {
        media = false;
        const id = idOf(target);
        if (id) ids.push(id);
      }
    }
    data[name] = rel.many ? ids : (ids[0] ?? null);
    kinds[name] = media ? 'media' : 'relation';
  }
  const status = 'publishedAt' in item ? (item.publishedAt ? 'published' : 'draft') : undefined;
  await state.writer.write({ entity, externalId, data, ...(status ? { status } : {}), line }, kinds);
}

export async function parseStrapiRest(input: ImportParseInput, writer: SpoolWriter): Promise<void> {
  const option = input.options?.entity;
  const entity = typeof option === 'string' && option ? plural(option) : plural(baseName(input.filename)) || 'entries';
  const state: State = { writer, files: new Set(), relativeUrls: 0 };
  let items = 0;
  const walked = await walkJson(input.path, {
    maxDepth: input.maxDepth,
    maxTokenBytes: maxLineBytesOf(input),
    encoding: plainEncoding(input),
    select: (p, token) => {
      if (p.length === 2 && p[0] === 'data' && typeof p[1] === 'number') return 'item';
      if (p.length === 1 && p[0] === 'data' && token.name === 'startObject') return 'single';
      if (p.length === 1 && p[0] === 'meta') return 'meta';
      if (p.length === 1 && p[0] === 'error') return 'error';
      return null;
    },
    onTooDeep: (_label, p) =>
      writer.warn(`item nested deeper than ${input.maxDepth} levels, skipped`, typeof p[1] === 'number' ? p[1] + 1 : undefined),
    onValue: async (label, value, p) => {
      if (label === 'item' || label === 'single') {
        items++;
        await writeItem(value, entity, typeof p[1] === 'number' ? p[1] + 1 : 1, state);
      } else if (label === 'meta') {
        const pg = (value as { pagination?: { page?: number; pageCount?: number; total?: number } })?.pagination;
        if (pg && typeof pg.pageCount === 'number' && pg.pageCount > 1) {
          writer.warn(
            `the response is page ${pg.page ?? '?'} of ${pg.pageCount} (${pg.total ?? '?'} entries in all): only this page's entries are in the file`,
          );
        }
      } else if (label === 'error' && isObj(value)) {
        writer.block(`the file is a Strapi error response: ${String(value.message ?? value.name ?? 'no message')}`);
      }
    },
  });
  if (walked.error) writer.warn(`not valid JSON (${walked.error}); ${items} item(s) read before the error`);
  if (state.relativeUrls)
    writer.warn(`${state.relativeUrls} upload URL(s) are relative to the Strapi server: their bytes cannot be fetched`);
  if (items === 0)
    writer.block(
      walked.topKeys.includes('data') ? 'the Strapi response holds no entries' : 'not a Strapi REST response (no top-level `data`)',
    );
}
