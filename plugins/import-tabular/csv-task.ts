/**
 * Worker side: the generic `csv` parse. Two streamed passes: the first reads the header, types every
 * column and checks whether an `id`/`uuid`/`_id`/`slug` column is filled and unique; the second writes
 * one `rows` entity per data row.
 *
 * Malformed rows (more or fewer fields than the header, a quote inside an unquoted value, text after a
 * closing quote) get a warning naming the line they start on. Lenient mode (the default) keeps them:
 * extra values dropped, missing ones empty, stray quotes kept as text. Strict mode (`options.strict`)
 * refuses them: they are not written, each has its warning, and the summary counts them in `refused`.
 * A row without an id column is keyed by its content (`sha256:<hex>`, see external-ids).
 */
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import type { TaskResult } from '../../workers/tasks.js';
import { inspectCsv, normaliseHeader, readCsvRows, type CsvRow, type CsvSource } from './csv-rows.js';
import { ColumnTypes } from './csv-values.js';
import { ContentKeys } from './external-ids.js';
import { failure } from './task-result.js';

const ID_COLUMNS = ['id', 'uuid', '_id', 'slug'];

/** The summary, with the rows strict mode refused per entity (not imported; each has a warning). */
export type CsvParseSummary = ImportParseSummary & { refused?: Record<string, number> };

interface FirstPass {
  header: string[] | null;
  headerLine: number;
  renamed: string[];
  /** Data records read (refused ones included). */
  records: number;
  /** Data rows that will be written. */
  rows: number;
  types: ColumnTypes;
  idColumn: number;
}

const clip = (c: string) => JSON.stringify(c.slice(0, 40));

/** What is wrong with a data row, worded for lenient mode (what was done) and for strict mode (why it is refused). */
function rowIssues(row: CsvRow, header: string[]): { lenient: string[]; strict: string[] } {
  const lenient: string[] = [];
  const strict: string[] = [];
  const { cells } = row;
  if (cells.length > header.length) {
    const fields = `row has ${cells.length} fields, the header ${header.length}`;
    const extra = cells.slice(header.length).filter((c) => c.trim() !== '');
    lenient.push(
      extra.length ? `${fields}: extra values ignored (${extra.map(clip).join(', ')})` : `${fields}: extra empty values ignored`,
    );
    strict.push(fields);
  } else if (cells.length < header.length) {
    const fields = `row has ${cells.length} fields, the header ${header.length}`;
    lenient.push(`${fields}: missing values left empty`);
    strict.push(fields);
  }
  for (const p of row.problems ?? []) {
    const where = `column ${p.column}${header[p.column - 1] ? ` (${JSON.stringify(header[p.column - 1])})` : ''}`;
    const what = p.kind === 'quote-in-unquoted' ? `stray quote in ${where}` : `text after the closing quote in ${where}`;
    lenient.push(`${what}: kept as text`);
    strict.push(what);
  }
  return { lenient, strict };
}

async function firstPass(input: ImportParseInput, source: CsvSource, spool: SpoolWriter, strict: boolean): Promise<FirstPass> {
  const types = new ColumnTypes(input.options?.decimalComma === true);
  let header: string[] | null = null;
  let headerLine = 0;
  let renamed: string[] = [];
  let records = 0;
  let rows = 0;
  let candidates: Array<{ index: number; seen: Set<string>; ok: boolean }> = [];
  // A record the parser cannot read (an unterminated quote...) is refused: counted as failed by the run.
  for await (const row of readCsvRows(input.path, source, (message, line) => spool.refuse('rows', message, line))) {
    if (!header) {
      ({ names: header, renamed } = normaliseHeader(row.cells));
      headerLine = row.line;
      const lower = header.map((h) => h.toLowerCase());
      candidates = ID_COLUMNS.map((name) => ({ index: lower.indexOf(name), seen: new Set<string>(), ok: true })).filter(
        (c) => c.index >= 0,
      );
      continue;
    }
    records++;
    if (strict && rowIssues(row, header).strict.length) continue;
    rows++;
    types.see(row.cells);
    for (const c of candidates) {
      if (!c.ok) continue;
      const value = (row.cells[c.index] ?? '').replace(/\u0000/g, '').trim();
      if (!value || c.seen.has(value)) {
        c.ok = false;
        c.seen.clear();
      } else c.seen.add(value);
    }
  }
  const idColumn = candidates.find((c) => c.ok)?.index ?? -1;
  return { header, headerLine, renamed, records, rows, types, idColumn };
}

export async function parseCsvFile(input: ImportParseInput): Promise<TaskResult<CsvParseSummary>> {
  const spool = new SpoolWriter(input.spoolPath, input.maxDepth);
  const strict = input.options?.strict === true;
  try {
    const source = await inspectCsv(input.path, input.filename, input.options, input.profile?.delimited?.delimiter);
    if (source.empty) {
      spool.block('The file is empty.');
      return { ok: true, value: await spool.close() };
    }
    const pass = await firstPass(input, source, spool, strict);
    if (!pass.header) {
      spool.block('The file has no header row.');
      return { ok: true, value: await spool.close() };
    }
    const header = pass.header;
    for (const note of pass.renamed) spool.warn(note, pass.headerLine);
    spool.touch('rows');
    if (pass.records === 0) spool.warn('The file has a header but no data rows.', pass.headerLine);
    const kinds = pass.types.fieldKinds(header);
    const keys = new ContentKeys();
    let refused = 0;
    let seenHeader = false;
    for await (const row of readCsvRows(input.path, source, () => undefined)) {
      if (!seenHeader) {
        seenHeader = true;
        for (const p of rowIssues(row, row.cells).lenient) spool.warn(`header: ${p}`, row.line);
        continue;
      }
      const issues = rowIssues(row, header);
      if (strict && issues.strict.length) {
        refused++;
        spool.refuse('rows', `row refused (strict mode): ${issues.strict.join('; ')}`, row.line);
        continue;
      }
      for (const message of issues.lenient) spool.warn(message, row.line);
      let cells = row.cells.slice(0, header.length);
      if (cells.some((c) => c.includes('\u0000'))) {
        spool.warn('NUL bytes removed from the row', row.line);
        cells = cells.map((c) => c.replace(/\u0000/g, ''));
      }
      const data: Record<string, unknown> = {};
      header.forEach((name, i) => (data[name] = pass.types.value(i, cells[i])));
      const externalId =
        pass.idColumn >= 0 ? cells[pass.idColumn].trim() : keys.of(Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ''])));
      await spool.write({ entity: 'rows', externalId, data, line: row.line }, kinds);
    }
    if (refused)
      spool.warn(
        `${refused} row${refused === 1 ? '' : 's'} refused in strict mode (not imported); import without strict mode to keep ${refused === 1 ? 'it' : 'them'} with warnings`,
      );
    const summary: CsvParseSummary = await spool.close();
    if (strict) summary.refused = { ...summary.refused, rows: summary.refused?.rows ?? 0 };
    return { ok: true, value: summary };
  } catch (err) {
    spool.abort();
    return failure(err);
  }
}
