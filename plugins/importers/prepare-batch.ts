/**
 * The importers' pool task (prepare-task.ts loads it): `prepareImportBatch` turns a batch of spool lines (records the parse
 * tasks wrote) into what the event loop only has to write: the mapped and coerced body, its checksum and ledger key, and for a new entry the
 * row itself, checked against the collection's schema and with its rich text sanitised exactly as the
 * API does (content's public-values.ts), with its id, sync id and slug base. Plain data in and out, no
 * kernel or database imports (loaded by every pool thread).
 */
import { createHash, randomUUID } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { ImportedEntity } from './format-contract.js';
import { fromColumn, readEntryInput, slugify, type FieldDefinition, type PreparedRow } from '../content/public-values.js';
import { coerce, type ContentFieldType } from './coerce.js';

/** The target of one source entity, as the run resolved it (collection schema and field mapping). */
export interface PrepareTarget {
  collection: string;
  /** The collection's schema version the rows are checked against (the write refuses a changed schema). */
  version: number;
  fields: FieldDefinition[];
  /** Source field -> target field. */
  map: Record<string, string>;
  /** The field attachments are stored in (type media), when mapped. */
  mediaField?: string;
  /** The collection has the scaffolded `_source_import` field. */
  source: boolean;
  /** Import everything as drafts (the plan's status policy `draft`): the source's status is not applied. */
  draft?: boolean;
}

export interface PrepareInput {
  /** Spool lines (NDJSON records), the first being spool line `firstLine`. */
  lines: string[];
  firstLine: number;
  format: string;
  importedAt: string;
  mode: 'add' | 'merge';
  /** Attachments known only by URL are fetched (the event loop does it): such records go the slow way too. */
  fetchRemote: boolean;
  targets: Record<string, PrepareTarget>;
  sourceField: string;
}

export interface PreparedItem {
  entity: string;
  externalId: string;
  /** The ledger's key of the external id. */
  key: string;
  checksum: string;
  line?: number;
  /** Warnings of the body (values that could not be coerced), given when the record is written. */
  notes?: string[];
  /** The mapped body (merge mode, attachments, and records the bulk path cannot take). */
  body?: Record<string, unknown>;
  /** Set when the record validates: the row of a new entry. */
  row?: PreparedRow;
  /** Why it does not validate (the create's 400 message). */
  invalid?: string;
  /** An attachment the event loop stores first (the record is created the slow way). */
  file?: ImportedEntity['file'];
  /** The source's language of the record (run-locales.ts writes it; `body` is then set). */
  locale?: string;
  /** Set by the run: the record takes the bulk path into the default locale; its ledger row's locale. */
  ledgerLocale?: string;
}

export interface PrepareOutput {
  items: PreparedItem[];
  warnings: Array<{ message: string; line?: number }>;
}

export type PrepareResult = { ok: true; value: PrepareOutput } | { ok: false; issues: Array<{ code: string; message: string }> };

export const externalKey = (id: string) => (id.length <= 191 ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`);
export const checksumOf = (e: Pick<ImportedEntity, 'data' | 'status' | 'file'>) =>
  createHash('sha256')
    .update(stringify({ d: e.data, s: e.status ?? null, f: e.file ?? null }) ?? '')
    .digest('hex');

function slugBase(fields: FieldDefinition[], values: Record<string, unknown>, slug: string | undefined, id: string): string {
  const source =
    slug ??
    ['title', 'name'].map((k) => values[k]).find((v) => typeof v === 'string') ??
    fields
      .filter((f) => f.type === 'text')
      .map((f) => values[f.name])
      .find((v) => typeof v === 'string');
  return slugify(typeof source === 'string' ? source : '') || id.slice(0, 8);
}

function prepare(e: ImportedEntity, input: PrepareInput): PreparedItem {
  const key = externalKey(e.externalId);
  const item: PreparedItem = { entity: e.entity, externalId: e.externalId, key, checksum: checksumOf(e) };
  if (e.line !== undefined) item.line = e.line;
  const t = input.targets[e.entity];
  if (!t) return item;
  const types = new Map(t.fields.map((f) => [f.name, f.type as ContentFieldType]));
  const body: Record<string, unknown> = {};
  const notes: string[] = [];
  const data = e.file?.url && e.data.url === undefined ? { ...e.data, url: e.file.url } : e.data;
  for (const [source, value] of Object.entries(data)) {
    const target = t.map[source];
    const type = target ? types.get(target) : undefined;
    if (!target || !type) continue;
    const v = coerce(value, type);
    if (v === undefined) notes.push(`'${source}' is not a valid ${type}, left empty`);
    else body[target] = v;
  }
  if (t.source)
    body[input.sourceField] = { format: input.format, importedAt: input.importedAt, externalId: e.externalId, entity: e.entity };
  if (t.draft) body.status = 'draft';
  else if (e.status) body.status = e.status;
  if (notes.length) item.notes = notes;
  // A record with a language (an attachment's too: its file is stored before its entry is written, run-locales.ts).
  if (e.locale) {
    item.locale = e.locale;
    item.body = body;
  }
  if (e.file?.path || (e.file?.url && input.fetchRemote)) {
    item.file = e.file;
    item.body = body;
    return item;
  }
  if (input.mode === 'merge') item.body = body;
  const read = readEntryInput({ name: t.collection, fields: t.fields }, body, 'create', 'body');
  if (!read.input) {
    item.invalid = read.message ?? 'Invalid entry';
    item.body = body;
    return item;
  }
  const { columns, values, slug, status } = read.input;
  const id = randomUUID();
  const entry: Record<string, unknown> = {};
  const row: unknown[] = [];
  for (const f of t.fields) {
    const column = columns[`f_${f.name}`] ?? null;
    row.push(column);
    entry[f.name] = f.type === 'json' ? (values[f.name] ?? null) : fromColumn(f, column);
  }
  item.row = { id, syncId: randomUUID(), slug: slugBase(t.fields, values, slug, id), status: status ?? 'draft', columns: row, entry };
  return item;
}

/** A spool line's record, or null when it is not one. */
export function parseEntity(text: string): ImportedEntity | null {
  try {
    const x = JSON.parse(text) as ImportedEntity | null;
    return x && typeof x.entity === 'string' && typeof x.externalId === 'string' && x.data && typeof x.data === 'object' ? x : null;
  } catch {
    return null;
  }
}

/** A batch of spool lines, prepared (see the file's comment). */
export function prepareImportBatch(input: PrepareInput): PrepareResult {
  if (!Array.isArray(input?.lines) || !input.targets || typeof input.firstLine !== 'number')
    return { ok: false, issues: [{ code: 'INVALID_INPUT', message: 'lines, firstLine and targets are required' }] };
  const out: PrepareOutput = { items: [], warnings: [] };
  input.lines.forEach((text, i) => {
    if (!text.trim()) return;
    const e = parseEntity(text);
    if (e) out.items.push(prepare(e, input));
    else out.warnings.push({ message: `spool line ${input.firstLine + i} is not a valid entity, skipped` });
  });
  return { ok: true, value: out };
}
