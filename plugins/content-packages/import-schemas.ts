/**
 * The collection schemas of a package (schemas/<name>.json, as GET /api/collections/:name/schema gives
 * them) and their compatibility with the target's collections.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FIELD_TYPES as CONTENT_FIELD_TYPES, type FieldDefinition } from '../content/public.js';
import { safeRelativePath } from './package-reader.js';

const SCHEMA_MAX_BYTES = 4 * 1024 * 1024;
const FIELD_TYPES = new Set<string>(CONTENT_FIELD_TYPES);
const FIELD_NAME = /^([a-zA-Z][a-zA-Z0-9]{0,47}|_source_import)$/;

export interface PackageSchema {
  name: string;
  label?: string;
  singular?: string;
  fields: FieldDefinition[];
}

/** The schema file of one collection, or a problem naming the file. */
export async function readSchema(root: string, name: string, file: string): Promise<PackageSchema | string> {
  if (!safeRelativePath(file)) return `collection '${name}': unusable schema path`;
  const path = join(root, file);
  const s = await stat(path).catch(() => null);
  if (!s?.isFile()) return `'${file}' (schema of '${name}') is missing`;
  if (s.size > SCHEMA_MAX_BYTES) return `'${file}' (schema of '${name}') is too large`;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return `'${file}' (schema of '${name}') is not valid JSON`;
  }
  let obj = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  if (obj.data && typeof obj.data === 'object' && !Array.isArray(obj.data) && !('fields' in obj)) obj = obj.data as Record<string, unknown>;
  if (!Array.isArray(obj.fields) || obj.fields.length > 200) return `'${file}' (schema of '${name}') has no field list`;
  const fields: FieldDefinition[] = [];
  for (const f of obj.fields as Array<Record<string, unknown>>) {
    if (!f || typeof f !== 'object' || typeof f.name !== 'string' || !FIELD_NAME.test(f.name) || !FIELD_TYPES.has(String(f.type)))
      return `'${file}' (schema of '${name}'): a field has no usable name or type`;
    if (f.type === 'relation' && typeof f.collection !== 'string')
      return `'${file}' (schema of '${name}'): relation field '${f.name}' names no collection`;
    fields.push(f as unknown as FieldDefinition);
  }
  return {
    name,
    ...(typeof obj.label === 'string' ? { label: obj.label } : {}),
    ...(typeof obj.singular === 'string' ? { singular: obj.singular } : {}),
    fields,
  };
}

/** Blocking differences between the package's schema and the target's fields (a field of another type or relation target). */
export function incompatibilities(collection: string, target: FieldDefinition[], incoming: FieldDefinition[]): string[] {
  const out: string[] = [];
  const here = new Map(target.map((f) => [f.name, f]));
  for (const f of incoming) {
    const t = here.get(f.name);
    if (!t) continue;
    if (t.type !== f.type)
      out.push(
        `collection '${collection}': field '${f.name}' is a ${f.type} in the package but a ${t.type} here (change the schema first)`,
      );
    else if (t.type === 'relation' && t.collection !== f.collection)
      out.push(
        `collection '${collection}': relation field '${f.name}' points to '${f.collection}' in the package but to '${t.collection}' here`,
      );
  }
  return out;
}
