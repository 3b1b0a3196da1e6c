/**
 * Worker side: the generic `csv` parse. Two streamed passes: the first reads the header, types every
 * column and checks whether an `id`/`uuid`/`_id`/`slug` column is filled and unique; the second writes
 * one `rows` entity per data row.
 */
import type { ImportParseInput, ImportParseSummary } from '../../kernel/registries/contracts.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import type { TaskResult } from '../../workers/tasks.js';
import { inspectCsv, normaliseHeader, readCsvRows, type CsvSource } from './csv-rows.js';
import { ColumnTypes } from './csv-values.js';
import { failure } from './task-result.js';

const ID_COLUMNS = ['id', 'uuid', '_id', 'slug'];

interface FirstPass {
  header: string[] | null;
  headerLine: number;
  renamed: string[];
  rows: number;
  types: ColumnTypes;
  idColumn: number;
}

async function firstPass(input: ImportParseInput, source: CsvSource, spool: SpoolWriter): Promise<FirstPass> {
  const types = new ColumnTypes(input.options?.decimalComma === true);
  let header: string[] | null = null;
  let headerLine = 0;
  let renamed: string[] = [];
  let rows = 0;
  let candidates: Array<{ index: number; seen: Set<string>; ok: boolean }> = [];
  for await (const row of readCsvRows(input.path, source, (message, line) => spool.warn(message, line))) {
    if (!header) {
      ({ names: header, renamed } = normaliseHeader(row.cells));
      headerLine = row.line;
      const lower = header.map((h) => h.toLowerCase());
      candidates = ID_COLUMNS.map((name) => ({ index: lower.indexOf(name), seen: new Set<string>(), ok: true })).filter((c) => c.index >= 0);
      continue;
    }
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
  return { header, headerLine, renamed, rows, types, idColumn };
}

export async function parseCsvFile(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  const spool = new SpoolWriter(input.spoolPath, input.maxDepth);
  try {
    const source = await inspectCsv(input.path, input.filename, input.options, input.profile?.delimited?.delimiter);
    if (source.empty) {
      spool.block('The file is empty.');
      return { ok: true, value: await spool.close() };
    }
    const pass = await firstPass(input, source, spool);
    if (!pass.header) {
      spool.block('The file has no header row.');
      return { ok: true, value: await spool.close() };
    }
    const header = pass.header;
    for (const note of pass.renamed) spool.warn(note, pass.headerLine);
    spool.touch('rows');
    if (pass.rows === 0) spool.warn('The file has a header but no data rows.', pass.headerLine);
    const kinds = pass.types.fieldKinds(header);
    let index = 0;
    let seenHeader = false;
    for await (const row of readCsvRows(input.path, source, () => undefined)) {
      if (!seenHeader) {
        seenHeader = true;
        continue;
      }
      index++;
      let cells = row.cells;
      if (cells.length > header.length) {
        const extra = cells.slice(header.length).filter((c) => c.trim() !== '');
        if (extra.length) spool.warn(`row has ${cells.length} fields, the header ${header.length}: extra values ignored (${extra.map((c) => JSON.stringify(c.slice(0, 40))).join(', ')})`, row.line);
        cells = cells.slice(0, header.length);
      } else if (cells.length < header.length) {
        spool.warn(`row has ${cells.length} fields, the header ${header.length}: missing values left empty`, row.line);
      }
      if (cells.some((c) => c.includes('\u0000'))) {
        spool.warn('NUL bytes removed from the row', row.line);
        cells = cells.map((c) => c.replace(/\u0000/g, ''));
      }
      const data: Record<string, unknown> = {};
      header.forEach((name, i) => (data[name] = pass.types.value(i, cells[i])));
      const externalId = pass.idColumn >= 0 ? cells[pass.idColumn].trim() : `row-${index}`;
      await spool.write({ entity: 'rows', externalId, data, line: row.line }, kinds);
    }
    return { ok: true, value: await spool.close() };
  } catch (err) {
    spool.abort();
    return failure(err);
  }
}
