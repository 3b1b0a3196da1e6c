/**
 * Worker side: `self_cms`, the entry files of this project's content package: NDJSON, one entry per line
 *   {"collection":"posts","_id":"...","slug":"hello","status":"published","data":{"title":"Hello"},
 *    "createdAt":"...","updatedAt":"..."}
 * `syncId` may stand for `_id`; a line without `data` holds its fields at the top level; a line with
 * `"_type":"manifest"` describes the package and is skipped. The entity is the collection name; the
 * external id is `_id` (else `syncId`, else the slug, else a key derived from the line's content:
 * `sha256:<hex>`, `#<k>` for the k-th identical line; see external-ids).
 */
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import type { TaskResult } from '../../workers/tasks.js';
import { readNdjsonLines } from './ndjson-lines.js';
import { ContentKeys } from './external-ids.js';
import { limitsOf } from '../../workers/import/limits.js';
import { detectTextEncoding } from './text-source.js';
import { failure } from './task-result.js';

const META = new Set(['collection', '_id', 'syncId', 'slug', 'status', 'data', 'createdAt', 'updatedAt', '_type']);
const COLLECTION = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;

export async function parseSelfCmsFile(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  const spool = new SpoolWriter(input.spoolPath, input.maxDepth);
  try {
    if ((await detectTextEncoding(input.path)).empty) {
      spool.block('The file is empty.');
      return { ok: true, value: await spool.close() };
    }
    const seen = new Map<string, Set<string>>();
    const content = new ContentKeys();
    let entries = 0;
    for await (const item of readNdjsonLines(input.path, input.maxDepth, limitsOf(input.options).maxLineBytes)) {
      const { value, line } = item;
      if (!value) {
        spool.warn(`line ${line}: ${item.problem}`, line);
        continue;
      }
      if (value._type === 'manifest') continue;
      const collection = text(value.collection);
      if (!collection || !COLLECTION.test(collection)) {
        spool.warn(`line ${line}: no valid "collection", skipped`, line);
        continue;
      }
      const slug = text(value.slug);
      let data: Record<string, unknown>;
      if (value.data !== undefined) {
        if (value.data === null || typeof value.data !== 'object' || Array.isArray(value.data)) {
          spool.warn(`line ${line}: "data" is not an object, skipped`, line);
          continue;
        }
        data = { ...(value.data as Record<string, unknown>) };
      } else {
        data = Object.fromEntries(Object.entries(value).filter(([k]) => !META.has(k)));
      }
      if (slug !== undefined && data.slug === undefined) data.slug = slug;
      const ids = seen.get(collection) ?? seen.set(collection, new Set()).get(collection)!;
      let externalId = text(value._id) ?? text(value.syncId) ?? slug ?? content.of(value);
      if (ids.has(externalId)) {
        const own = externalId;
        externalId = content.of(value);
        spool.warn(`line ${line}: ${collection} "${own}" appears twice: this line is matched by its content (${externalId})`, line);
      }
      ids.add(externalId);
      const status = value.status === 'published' || value.status === 'draft' ? value.status : undefined;
      if (await spool.write({ entity: collection, externalId, data, line, ...(status ? { status } : {}) })) entries++;
    }
    if (entries === 0) spool.block('The file holds no content entries.');
    return { ok: true, value: await spool.close() };
  } catch (err) {
    spool.abort();
    return failure(err);
  }
}
