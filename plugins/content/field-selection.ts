import { z } from 'zod';
import type { CollectionDefinition } from './collection-schema.js';
import type { Entry } from './entry-shape.js';
import { invalidQuery } from './list-filter.js';

/** The `fields` query parameter: a comma list of the fields an answer keeps (API decisions, "Content model v2"). */
export const fieldsParam = z
  .string()
  .max(4000)
  .optional()
  .describe(
    'Comma list of the fields to answer (with _id always); the system fields slug, status, version, createdAt, updatedAt… may be named too',
  );

/** The keys every entry carries besides its fields; `fields=` may name them. */
const SYSTEM_KEYS = new Set(['slug', 'status', 'syncId', 'version', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy']);
/** Keys kept whatever `fields=` names. */
const ALWAYS = ['_id', '_locale', '_locales', '_fallbackFields'];

/** The keys a `fields` parameter keeps, or null without one; an unknown name is a 400 naming it. */
export function selectedKeys(c: CollectionDefinition, fields: string | undefined): Set<string> | null {
  if (fields === undefined) return null;
  const names = [...new Set(fields.split(',').map((s) => s.trim()))].filter(Boolean);
  if (!names.length) invalidQuery('fields', 'name at least one field');
  const known = new Set(c.fields.map((f) => f.name));
  for (const name of names) if (!known.has(name) && !SYSTEM_KEYS.has(name)) invalidQuery('fields', `unknown field '${name}'`);
  return new Set([...ALWAYS, ...names]);
}

/** The entry with only the selected keys (in the order the entry has them). */
export function selectKeys(entry: Entry, keys: Set<string> | null): Entry {
  if (!keys) return entry;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(entry)) if (keys.has(key)) out[key] = entry[key];
  return out as Entry;
}
