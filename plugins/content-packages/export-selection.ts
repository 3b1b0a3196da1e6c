/**
 * What an export takes (ExportSelection, public.ts): the request schema, its checks against the
 * collections of this instance, and the SQL WHERE of the selected entries of one collection (tenant,
 * status, updated_at range, field equality filters), shared by the plan (counts) and the writer (pages).
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { z } from 'zod';
import { AppError, ValidationError, type ValidationIssue } from '../../kernel/sdk.js';
import {
  columnName,
  toColumn,
  valueSchema,
  type CollectionsService,
  type FieldDefinition,
  type LoadedCollection,
} from '../content/public.js';
import { zodIssueDetails } from '../data-ops/public.js';
import type { ExportSelection } from './public.js';

/** Collections per export and filter keys per collection (every loop over client input is bounded). */
export const MAX_COLLECTIONS = 100;
export const MAX_FILTER_KEYS = 20;

const isoDate = z
  .union([z.string().datetime({ offset: true }), z.string().date()])
  .describe('ISO date or date-time; compared with the entries updatedAt');
const filterValue = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

export const selectionSchema = z
  .object({
    collections: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(MAX_COLLECTIONS)
      .describe('collection names, exported in this order (duplicates are dropped)'),
    includeMedia: z.boolean().optional().describe('put the referenced media files into the package (media/files/<sha256>)'),
    status: z.enum(['draft', 'published', 'archived']).optional().describe('only entries with this status'),
    updatedFrom: isoDate.optional().describe('only entries updated at or after'),
    updatedTo: isoDate.optional().describe('only entries updated before'),
    filters: z
      .record(z.string().max(64), z.record(z.string().max(64), filterValue))
      .optional()
      .describe(`per selected collection, field equality filters {"field": value} (at most ${MAX_FILTER_KEYS} fields per collection)`),
  })
  .strict();

const unknownCollections = (names: string[], paths: string[]) =>
  new AppError('COLLECTION_NOT_FOUND', 404, `Unknown collection${names.length > 1 ? 's' : ''}: ${names.map((n) => `'${n}'`).join(', ')}`, {
    extra: { issues: names.map((n, i) => ({ path: paths[i]!, message: `no collection '${n}'` })) },
  });

/** Normalises and checks a selection: 400 VALIDATION_ERROR with every issue, 404 COLLECTION_NOT_FOUND naming every unknown collection. */
export async function checkSelection(raw: unknown, collections: CollectionsService): Promise<ExportSelection> {
  const parsed = selectionSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = zodIssueDetails(parsed.error.issues);
    throw new ValidationError(`Invalid export selection: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
  const input = parsed.data;
  const names = [...new Set(input.collections)];
  const missing: string[] = [];
  const paths: string[] = [];
  const loaded = new Map<string, LoadedCollection>();
  for (const name of names) {
    try {
      loaded.set(name, await collections.get(name));
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 404) throw err;
      missing.push(name);
      paths.push(`body.collections.${input.collections.indexOf(name)}`);
    }
  }
  if (missing.length) throw unknownCollections(missing, paths);
  const issues: ValidationIssue[] = [];
  const from = input.updatedFrom ? Date.parse(input.updatedFrom) : null;
  const to = input.updatedTo ? Date.parse(input.updatedTo) : null;
  if (from !== null && to !== null && from >= to) issues.push({ path: 'body.updatedTo', message: 'must be after updatedFrom' });
  const filters: Record<string, Record<string, unknown>> = {};
  for (const [collection, conditions] of Object.entries(input.filters ?? {})) {
    const c = loaded.get(collection);
    if (!c) {
      issues.push({ path: `body.filters.${collection}`, message: 'filters only apply to selected collections' });
      continue;
    }
    const keys = Object.keys(conditions);
    if (keys.length > MAX_FILTER_KEYS) {
      issues.push({ path: `body.filters.${collection}`, message: `at most ${MAX_FILTER_KEYS} fields` });
      continue;
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const f = c.fields.find((x) => x.name === key);
      const path = `body.filters.${collection}.${key}`;
      if (!f) issues.push({ path, message: `unknown field '${key}'` });
      else if (f.type === 'json') issues.push({ path, message: 'json fields cannot be filtered' });
      else if (conditions[key] === null) out[key] = null;
      else {
        const checked = valueSchema(f).safeParse(conditions[key]);
        if (!checked.success) issues.push({ path, message: `not a valid ${f.type}: ${checked.error.issues[0]?.message}` });
        else out[key] = checked.data;
      }
    }
    if (keys.length) filters[collection] = out;
  }
  if (issues.length)
    throw new ValidationError(`Invalid export selection: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  return {
    collections: names,
    ...(input.includeMedia ? { includeMedia: true } : {}),
    ...(input.status ? { status: input.status } : {}),
    ...(from !== null ? { updatedFrom: new Date(from).toISOString() } : {}),
    ...(to !== null ? { updatedTo: new Date(to).toISOString() } : {}),
    ...(Object.keys(filters).length ? { filters } : {}),
  };
}

export const quote = (sequelize: Sequelize, name: string) => sequelize.getQueryInterface().quoteIdentifier(name);

/** A WHERE clause with `?` placeholders and its values. */
export interface Where {
  sql: string;
  values: unknown[];
}

/** The selected entries of one collection for one tenant. */
export function selectionWhere(sequelize: Sequelize, c: LoadedCollection, tenantId: string, selection: ExportSelection): Where {
  // On SQLite the tenant term is written `+tenant_id` (no index for it): the export reads in keyset pages by
  // id, and without statistics SQLite would otherwise pick the (tenant_id, ...) indexes and sort every page.
  const parts = [`${sequelize.getDialect() === 'sqlite' ? '+' : ''}${quote(sequelize, 'tenant_id')} = ?`];
  const values: unknown[] = [tenantId];
  if (selection.status) {
    parts.push(`${quote(sequelize, 'status')} = ?`);
    values.push(selection.status);
  }
  if (selection.updatedFrom) {
    parts.push(`${quote(sequelize, 'updated_at')} >= ?`);
    values.push(Date.parse(selection.updatedFrom));
  }
  if (selection.updatedTo) {
    parts.push(`${quote(sequelize, 'updated_at')} < ?`);
    values.push(Date.parse(selection.updatedTo));
  }
  for (const [name, value] of Object.entries(selection.filters?.[c.name] ?? {})) {
    const f = c.fields.find((x) => x.name === name);
    // A field dropped since the plan: the filter cannot match anything.
    if (!f) {
      parts.push('1 = 0');
      continue;
    }
    if (value === null) parts.push(`${quote(sequelize, columnName(f))} IS NULL`);
    else {
      parts.push(`${quote(sequelize, columnName(f))} = ?`);
      values.push(toColumn(f, value));
    }
  }
  return { sql: parts.join(' AND '), values };
}

export async function countWhere(sequelize: Sequelize, table: string, where: Where, extra = ''): Promise<number> {
  const [row] = await sequelize.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM ${quote(sequelize, table)} WHERE ${where.sql}${extra ? ` AND ${extra}` : ''}`,
    { type: QueryTypes.SELECT, replacements: where.values },
  );
  return Number(row?.n ?? 0);
}

/** Media and relation fields of a collection. */
export const fieldsOfType = (c: { fields: FieldDefinition[] }, type: FieldDefinition['type']) => c.fields.filter((f) => f.type === type);

/**
 * The media records (tenant's media_items) referenced by a media field of the selected entries: a
 * WHERE on media_items with one sub-select per media field, so no id list is held in memory.
 */
export function referencedMediaWhere(
  sequelize: Sequelize,
  collections: LoadedCollection[],
  tenantId: string,
  selection: ExportSelection,
): Where | null {
  const subs: string[] = [];
  const values: unknown[] = [tenantId];
  for (const c of collections) {
    const where = selectionWhere(sequelize, c, tenantId, selection);
    for (const f of fieldsOfType(c, 'media')) {
      const col = quote(sequelize, columnName(f));
      subs.push(`${quote(sequelize, 'id')} IN (SELECT ${col} FROM ${quote(sequelize, c.table)} WHERE ${where.sql} AND ${col} IS NOT NULL)`);
      values.push(...where.values);
    }
  }
  if (!subs.length) return null;
  return { sql: `${quote(sequelize, 'tenant_id')} = ? AND (${subs.join(' OR ')})`, values };
}

/**
 * The media records a package holds: those of the media fields (`byField`), those the rich text names by
 * path, and those named inside component and blocks values (`ids`); null when there are none.
 */
export function mediaWhere(sequelize: Sequelize, tenantId: string, byField: Where | null, paths: string[], ids: string[]): Where | null {
  const also: Where[] = [];
  if (paths.length)
    also.push({ sql: `(${quote(sequelize, 'path')} IN (?) AND ${quote(sequelize, 'deleted_at')} IS NULL)`, values: [paths] });
  if (ids.length) also.push({ sql: `${quote(sequelize, 'id')} IN (?)`, values: [ids] });
  const sql = also.map((w) => w.sql);
  const values = also.flatMap((w) => w.values);
  if (byField)
    return { sql: byField.sql.replace(/\)$/, sql.map((x) => ` OR ${x}`).join('') + ')'), values: [...byField.values, ...values] };
  return also.length ? { sql: `${quote(sequelize, 'tenant_id')} = ? AND (${sql.join(' OR ')})`, values: [tenantId, ...values] } : null;
}
