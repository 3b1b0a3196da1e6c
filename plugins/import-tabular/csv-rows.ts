/**
 * Worker side: a delimited text file as rows. Delimiter from the caller, else sniffed from the first
 * lines (comma, semicolon, tab, pipe); leading `#` lines switch comment lines on; ragged rows, stray
 * quotes, CR-only line ends and quoted newlines are accepted, stray quotes reported per row;
 * unreadable records are skipped with a warning. Each row carries the physical line on which it starts
 * (LF, CRLF and lone CR each end a line, inside quoted values too). A record longer than the line limit
 * refuses the upload (ImportLimitError).
 */
import { parse, type CsvError, type Options } from 'csv-parse';
import { pipeline } from 'node:stream/promises';
import { LineIndex, quoteProblems, type CsvQuoteProblem } from '../../workers/import/csv-lines.js';
import { formatBytes, ImportLimitError, limitsOf } from '../../workers/import/limits.js';
import { detectTextEncoding, openText } from './text-source.js';

export const DELIMITERS = [',', ';', '\t', '|'] as const;

export interface CsvSource {
  encoding: string;
  bom: boolean;
  delimiter: string;
  comments: boolean;
  empty: boolean;
  /** Largest record in bytes (the line limit): a runaway quote cannot eat the memory. */
  maxRecordBytes: number;
}

export type { CsvQuoteProblem };

export interface CsvRow {
  cells: string[];
  /** The physical line (1-based) on which the record starts. */
  line: number;
  /** Quoting mistakes the relaxed parser read past (the values keep the quotes as text). */
  problems?: CsvQuoteProblem[];
}

/** Counts of a character outside double quotes in one line. */
function countOutsideQuotes(line: string, ch: string): number {
  let n = 0;
  let quoted = false;
  for (const c of line) {
    if (c === '"') quoted = !quoted;
    else if (c === ch && !quoted) n++;
  }
  return n;
}

/** The delimiter whose count is the same on most of the first lines (ties: the larger count, then the list order). */
export function sniffDelimiter(head: string, preferTab = false): string {
  const lines = head
    .split(/\r\n|\r|\n/)
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .slice(0, 20);
  if (lines.length > 1 && head.length >= 64 * 1024 - 16) lines.pop(); // the last line may be cut
  let best: string = preferTab ? '\t' : ',';
  let bestScore = -1;
  for (const d of DELIMITERS) {
    const counts = lines.map((l) => countOutsideQuotes(l, d));
    const first = counts[0] ?? 0;
    if (first === 0) continue;
    const same = counts.filter((c) => c === first).length;
    const score = same * 1000 + Math.min(first, 999) + (preferTab && d === '\t' ? 500 : 0);
    if (score > bestScore) {
      bestScore = score;
      best = d;
    }
  }
  return best;
}

export async function inspectCsv(
  path: string,
  filename: string,
  options: Record<string, unknown> = {},
  profileDelimiter?: string,
): Promise<CsvSource> {
  const text = await detectTextEncoding(path, options.encoding);
  const explicit = [options.delimiter, profileDelimiter].find(
    (d): d is string => typeof d === 'string' && (DELIMITERS as readonly string[]).includes(d),
  );
  const delimiter = explicit ?? sniffDelimiter(text.head, /\.tsv$/i.test(filename));
  const firstLine = text.head.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '';
  return {
    encoding: text.encoding,
    bom: text.bom,
    delimiter,
    comments: firstLine.startsWith('#'),
    empty: text.empty,
    maxRecordBytes: limitsOf(options).maxLineBytes,
  };
}

/**
 * Rows of the file, streamed; `onSkip` hears about records the parser could not read. Line numbers are
 * counted here (csv-parse's own count takes a CRLF inside quotes for two lines and gives the line a
 * record ends on): each record's byte range is matched to the physical line it starts on.
 */
export async function* readCsvRows(
  path: string,
  source: CsvSource,
  onSkip: (message: string, line?: number) => void,
): AsyncGenerator<CsvRow> {
  const index = new LineIndex(source.comments);
  let prevEnd = 0;
  let tooLong: ImportLimitError | null = null;
  const parser = parse({
    delimiter: source.delimiter,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: source.maxRecordBytes,
    raw: true,
    ...(source.comments ? { comment: '#', comment_no_infix: true } : {}),
    on_record: (item: { record: string[]; raw: string }, context: { bytes: number }): CsvRow => {
      const line = index.startLine(prevEnd, context.bytes);
      prevEnd = context.bytes;
      index.forget(prevEnd);
      const problems = quoteProblems(item.raw, source.delimiter, source.comments);
      return problems.length ? { cells: item.record, line, problems } : { cells: item.record, line };
    },
    on_skip: (err: CsvError | undefined) => {
      if (!err) return;
      const line = index.startLine(prevEnd, Infinity);
      if (err.code === 'CSV_MAX_RECORD_SIZE') {
        tooLong ??= new ImportLimitError('maxLineBytes', `CSV record over ${formatBytes(source.maxRecordBytes)} at line ${line}`);
        parser.destroy();
        return;
      }
      onSkip(`unreadable record skipped: ${err.message.replace(/^Invalid \w+: /, '').replace(/ at line \d+.*$/, '')}`, line);
    },
  } as unknown as Options);
  const done = pipeline(openText(path, source.encoding), index, parser);
  let failure: unknown;
  done.catch((err) => (failure = err));
  try {
    for await (const row of parser as AsyncIterable<CsvRow>) {
      if (tooLong) break;
      yield row;
    }
  } catch (err) {
    if (!tooLong) throw err; // else the parser was stopped on purpose: the limit is the reason
  }
  await done.catch(() => undefined);
  if (tooLong) throw tooLong;
  if (failure) throw failure;
}

/** Header names: whitespace (tabs, newlines) collapsed, blanks named `column_<n>`, repeats suffixed `_2`, `_3`. */
export function normaliseHeader(cells: string[]): { names: string[]; renamed: string[] } {
  const seen = new Map<string, number>();
  const renamed: string[] = [];
  const names = cells.map((raw, i) => {
    let name = raw
      .replace(/\u0000/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (!name) {
      name = `column_${i + 1}`;
      renamed.push(`column ${i + 1} has no name: called "${name}"`);
    }
    const n = (seen.get(name.toLowerCase()) ?? 0) + 1;
    seen.set(name.toLowerCase(), n);
    if (n > 1) {
      const unique = `${name}_${n}`;
      renamed.push(`column ${i + 1} repeats "${name}": called "${unique}"`);
      name = unique;
    }
    return name;
  });
  return { names, renamed };
}
