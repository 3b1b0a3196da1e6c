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
import { parseDirectusArchive } from './directus-archive.js';

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
  return runParse(input, (i, writer) => (isArchiveInput(i) ? parseDirectusArchive(i, writer) : parseDirectus(i, writer)));
}
