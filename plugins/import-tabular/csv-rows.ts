/**
 * Worker side: a delimited text file as rows. Delimiter from the caller, else sniffed from the first
 * lines (comma, semicolon, tab, pipe); leading `#` lines switch comment lines on; ragged rows, stray
 * quotes, CR-only line ends and quoted newlines are accepted; unreadable records are skipped with a
 * warning. Each row carries the line on which it ends.
 */
import { parse, type CsvError } from 'csv-parse';
import { pipeline } from 'node:stream/promises';
import { detectTextEncoding, openText } from './text-source.js';

export const DELIMITERS = [',', ';', '\t', '|'] as const;
/** Largest record (characters) before the parser gives up on it: a runaway quote cannot eat the memory. */
const MAX_RECORD_CHARS = 8 * 1024 * 1024;

export interface CsvSource {
  encoding: string;
  bom: boolean;
  delimiter: string;
  comments: boolean;
  empty: boolean;
}

export interface CsvRow {
  cells: string[];
  line: number;
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
  const lines = head.split(/\r\n|\r|\n/).filter((l) => l.trim() !== '' && !l.startsWith('#')).slice(0, 20);
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

export async function inspectCsv(path: string, filename: string, options: Record<string, unknown> = {}, profileDelimiter?: string): Promise<CsvSource> {
  const text = await detectTextEncoding(path, options.encoding);
  const explicit = [options.delimiter, profileDelimiter].find((d): d is string => typeof d === 'string' && (DELIMITERS as readonly string[]).includes(d));
  const delimiter = explicit ?? sniffDelimiter(text.head, /\.tsv$/i.test(filename));
  const firstLine = text.head.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '';
  return { encoding: text.encoding, bom: text.bom, delimiter, comments: firstLine.startsWith('#'), empty: text.empty };
}

/** Rows of the file, streamed; `onSkip` hears about records the parser could not read. */
export async function* readCsvRows(path: string, source: CsvSource, onSkip: (message: string, line?: number) => void): AsyncGenerator<CsvRow> {
  const parser = parse({
    delimiter: source.delimiter,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_CHARS,
    info: true,
    ...(source.comments ? { comment: '#', comment_no_infix: true } : {}),
    on_skip: (err: CsvError | undefined) => {
      if (err) onSkip(`unreadable record skipped: ${err.message.replace(/^Invalid \w+: /, '')}`, (err as CsvError & { lines?: number }).lines);
    },
  });
  const done = pipeline(openText(path, source.encoding), parser);
  let failure: unknown;
  done.catch((err) => (failure = err));
  for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    yield { cells: item.record, line: item.info.lines };
  }
  await done.catch(() => undefined);
  if (failure) throw failure;
}

/** Header names: whitespace (tabs, newlines) collapsed, blanks named `column_<n>`, repeats suffixed `_2`, `_3`. */
export function normaliseHeader(cells: string[]): { names: string[]; renamed: string[] } {
  const seen = new Map<string, number>();
  const renamed: string[] = [];
  const names = cells.map((raw, i) => {
    let name = raw.replace(/\u0000/g, '').replace(/\s+/g, ' ').trim();
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
