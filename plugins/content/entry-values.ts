/**
 * An entry body read against a collection's schema (unknown keys, each field's type, required fields,
 * defaults) and slugs, without the database or the kernel: entry-input.ts throws its issues as a 400,
 * the importers' worker task (plugins/importers/prepare-batch.ts) reports them per record.
 */
import { z } from 'zod';
import type { CollectionDefinition } from './collection-schema.js';
import { columnName, toColumn, valueSchema } from './field-values.js';

export const STATUSES = ['draft', 'published', 'archived'] as const;
export type EntryStatus = (typeof STATUSES)[number];

/** Keys an entry carries that clients may send back unchanged; they are ignored on writes. */
const READ_ONLY = new Set([
  '_id',
  'syncId',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'version',
  '_locale',
  '_locales',
  '_fallbackFields',
  // Working drafts (entry-drafts.ts): whether an entry has one, and the draft's own state.
  'hasDraft',
  '_draft',
]);

export interface CheckedInput {
  /** Column -> stored value, for the fields present (on create: with defaults). */
  columns: Record<string, unknown>;
  /** Field name -> API value, for the fields present. */
  values: Record<string, unknown>;
  slug?: string;
  status?: EntryStatus;
}
export interface InputIssue {
  path: string;
  message: string;
}

/** The body schema of a collection, built once per field list (a schema change brings a new list). */
const bodySchemas = new WeakMap<object, z.ZodType>();
function bodySchema(c: Pick<CollectionDefinition, 'fields'>): z.ZodType {
  let schema = bodySchemas.get(c.fields);
  if (!schema) {
    const shape: Record<string, z.ZodType> = {
      slug: z.string().min(1).max(180).optional(),
      status: z.enum(STATUSES).optional(),
    };
    for (const f of c.fields) shape[f.name] = valueSchema(f).nullable().optional();
    schema = z.object(shape).strict();
    bodySchemas.set(c.fields, schema);
  }
  return schema;
}

/**
 * Reads an entry body against the collection's schema: unknown keys, each field's type, required
 * fields (on create after defaults; on update only when a required field is set to null). Every
 * problem is listed, naming its field; `input` is set when there is none.
 */
export function readEntryInput(
  c: Pick<CollectionDefinition, 'name' | 'fields'>,
  body: unknown,
  mode: 'create' | 'update',
  pathPrefix = 'body',
): { input?: CheckedInput; issues: InputIssue[]; message?: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { issues: [{ path: pathPrefix, message: 'expected an object' }], message: 'The entry must be a JSON object' };
  const input = Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([k]) => !READ_ONLY.has(k)));
  const parsed = bodySchema(c).safeParse(input);
  const issues: InputIssue[] = [];
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      if (i.code === 'unrecognized_keys')
        for (const key of i.keys)
          issues.push({
            path: [pathPrefix, ...i.path.map(String), key].join('.'),
            message: `'${key}' is not a field of ${i.path.length ? 'this component' : c.name}`,
          });
      else issues.push({ path: [pathPrefix, ...i.path.map(String)].join('.'), message: i.message });
    }
  }
  const data = (parsed.success ? parsed.data : {}) as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const f of c.fields) {
    let v = data[f.name];
    if (mode === 'create' && (v === undefined || v === null) && f.default !== undefined && f.default !== null)
      v = valueSchema(f).parse(f.default);
    const missing = v === null || (mode === 'create' && v === undefined);
    if (f.required && missing && !issues.some((i) => i.path === `${pathPrefix}.${f.name}`))
      issues.push({ path: `${pathPrefix}.${f.name}`, message: 'required' });
    if (v !== undefined) values[f.name] = v;
  }
  if (issues.length) return { issues, message: `Invalid entry for ${c.name}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}` };
  const columns: Record<string, unknown> = {};
  for (const f of c.fields) if (f.name in values) columns[columnName(f)] = toColumn(f, values[f.name]);
  return { input: { columns, values, slug: data.slug as string | undefined, status: data.status as EntryStatus | undefined }, issues };
}

/** A URL-safe slug: lower case, ASCII letters and digits joined by '-'. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 180)
    .replace(/-+$/, '');
}
