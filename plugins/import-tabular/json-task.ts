/**
 * Worker side: the generic `json` parse. Records are found where they are (a root array, the first
 * root key holding an array of objects, objects keyed by id, or one root object); NDJSON given a
 * `.json` name is read line by line. Each record becomes one `rows` entity; values are kept as JSON
 * typed them (an empty string stays an empty string, nested objects stay objects).
 */
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import type { TaskResult } from '../../workers/tasks.js';
import { ExternalIds } from './external-ids.js';
import { findLayout, readJsonRecords } from './json-records.js';
import { readNdjsonLines } from './ndjson-lines.js';
import { looksLikeNdjson } from '../../workers/import/ndjson-sniff.js';
import { isLimitError, limitFailure, limitsOf } from '../../workers/import/limits.js';
import { detectTextEncoding } from './text-source.js';
import { failure } from './task-result.js';

export async function isNdjson(input: ImportParseInput): Promise<boolean> {
  if (input.profile?.kind === 'ndjson') return true;
  if (input.profile?.kind === 'json') return false;
  const text = await detectTextEncoding(input.path);
  return looksLikeNdjson(text.head, text.truncated);
}

export async function parseJsonFile(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  const spool = new SpoolWriter(input.spoolPath, input.maxDepth);
  const ids = new ExternalIds();
  const limits = limitsOf(input.options);
  spool.touch('rows');
  try {
    if ((await detectTextEncoding(input.path)).empty) {
      spool.block('The file is empty.');
      return { ok: true, value: await spool.close() };
    }
    if (await isNdjson(input)) {
      for await (const item of readNdjsonLines(input.path, input.maxDepth, limits.maxLineBytes)) {
        if (!item.value) {
          spool.refuse('rows', `line ${item.line}: ${item.problem}`, item.line);
          continue;
        }
        const { id, duplicate } = ids.of(item.value);
        if (duplicate) spool.warn(`id "${duplicate}" repeats: this record is matched by its content (${id})`, item.line);
        await spool.write({ entity: 'rows', externalId: id, data: item.value, line: item.line });
      }
      return { ok: true, value: await spool.close() };
    }
    const layout = await findLayout(input.path, limits.maxLineBytes);
    if (layout.kind === 'none') {
      spool.block(layout.reason);
      return { ok: true, value: await spool.close() };
    }
    let written = 0;
    try {
      for await (const record of readJsonRecords(input.path, layout, input.maxDepth, limits.maxLineBytes, (keys) =>
        spool.warn(`root keys beside the records ignored: ${keys.slice(0, 20).join(', ')}`),
      )) {
        if (!record.value) {
          spool.refuse('rows', `record ${record.index}${record.key ? ` ("${record.key}")` : ''}: ${record.refused}, skipped`, record.index);
          continue;
        }
        const { id, duplicate } = ids.of(record.value, record.key);
        if (duplicate) spool.warn(`id "${duplicate}" repeats: record ${record.index} is matched by its content (${id})`, record.index);
        if (await spool.write({ entity: 'rows', externalId: id, data: record.value, line: record.index })) written++;
      }
    } catch (err) {
      if (isLimitError(err)) throw err;
      const message = `The JSON is not well-formed, reading stopped: ${(err as Error).message}`;
      if (written === 0) spool.block(message);
      else spool.warn(message);
    }
    return { ok: true, value: await spool.close() };
  } catch (err) {
    spool.abort();
    if (isLimitError(err)) return limitFailure(err);
    return failure(err);
  }
}
