/**
 * Entries in package form (PackageEntry, see public.ts), shared by the export and the import side so a
 * checksum computed on one instance equals the one computed on another for the same content:
 * relation values become `{$ref: {collection, syncId}}` (a many-relation an array of them), media values `{$media: <media id>}`, and the
 * checksum is the SHA-256 of the canonical JSON (keys sorted, safe-stable-stringify) of
 * `{slug, status, fields}` in that form. Entry ids, versions and timestamps are not part of it.
 */
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { Entry, FieldDefinition } from '../content/public.js';

export interface RefValue {
  $ref: { collection: string; syncId: string };
}
export interface MediaValue {
  $media: string;
}

export const isRef = (v: unknown): v is RefValue =>
  !!v && typeof v === 'object' && '$ref' in v && typeof (v as RefValue).$ref?.syncId === 'string';
export const isMedia = (v: unknown): v is MediaValue => !!v && typeof v === 'object' && typeof (v as MediaValue).$media === 'string';

/** SHA-256 hex of the canonical JSON of {slug, status, fields} (fields in package form). */
export function entryChecksum(slug: string, status: string, fields: Record<string, unknown>): string {
  return createHash('sha256')
    .update(stringify({ slug, status, fields }) ?? '')
    .digest('hex');
}

/**
 * The fields of an entry (API form, as EntriesService.toEntry gives it) in package form.
 * `syncIdOf(collection, id)` answers the sync id of a related entry (null: the reference is dangling
 * and is written as null). Unknown keys of the entry are ignored: only the schema's fields travel.
 */
export function encodeFields(
  fields: FieldDefinition[],
  entry: Entry,
  syncIdOf: (collection: string, id: string) => string | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = entry[f.name];
    if (v === null || v === undefined) out[f.name] = null;
    else if (f.type === 'relation' && Array.isArray(v)) {
      // A many-relation: its references in order, the dangling ones left out.
      const refs: RefValue[] = [];
      for (const id of v) {
        const syncId = syncIdOf(f.collection!, String(id));
        if (syncId) refs.push({ $ref: { collection: f.collection!, syncId } });
      }
      out[f.name] = refs;
    } else if (f.type === 'relation') {
      const syncId = syncIdOf(f.collection!, String(v));
      out[f.name] = syncId ? { $ref: { collection: f.collection!, syncId } } : null;
    } else if (f.type === 'media') out[f.name] = { $media: String(v) };
    else out[f.name] = v;
  }
  return out;
}

/** The ids an entry refers to per related collection (to resolve their sync ids in one query per page). */
export function referencedIds(fields: FieldDefinition[], entries: Entry[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const f of fields) {
    if (f.type !== 'relation') continue;
    for (const e of entries) {
      const v = e[f.name];
      if (v === null || v === undefined) continue;
      let set = out.get(f.collection!);
      if (!set) out.set(f.collection!, (set = new Set()));
      for (const id of Array.isArray(v) ? v : [v]) set.add(String(id));
    }
  }
  return out;
}
