/**
 * Piscina task file of the CMS import formats (php_cms, node_cms, data_cms): each export parses one
 * upload into the spool file and returns the summary. Expected failures come back as data.
 */
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import type { TaskResult } from '../../workers/tasks.js';
import { runParse, isArchiveInput } from './task-run.js';
import { parseDrupal } from './drupal-parse.js';
import { parseStrapiExport } from './strapi-export.js';
import { parseStrapiRest } from './strapi-rest.js';
import { parseDirectus } from './directus-parse.js';
import { DirectusReferences, parseDirectusArchive } from './directus-archive.js';

export function parsePhpCms(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  return runParse(input, parseDrupal);
}

export function parseNodeCms(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  return runParse(input, async (i, writer) => {
    if (/\.enc$/i.test(i.filename))
      return writer.block('encrypted Strapi export (.enc): not supported; export again with `strapi export --no-encrypt`');
    return isArchiveInput(i) ? parseStrapiExport(i, writer) : parseStrapiRest(i, writer);
  });
}

export function parseDataCms(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  return runParse(input, async (i, writer) => {
    if (isArchiveInput(i)) return parseDirectusArchive(i, writer);
    // One file: its references to other collections may name records an earlier import wrote (earlierRefs).
    const refs = new DirectusReferences();
    const typed = await parseDirectus(i, writer, (c, id, data) => refs.noteItem(c, id, data));
    writer.earlierRefs = refs.unplaced();
    return typed;
  });
}
