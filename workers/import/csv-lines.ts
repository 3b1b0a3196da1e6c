/**
 * Worker side: where the records of a delimited text start. LineIndex sits between the decoder and
 * csv-parse: it passes the text on as UTF-8 bytes (what csv-parse counts in info.bytes) and remembers
 * where each physical line starts (LF, CRLF or a lone CR ends a line, inside quoted values too), so a
 * record's byte range gives the line it starts on. csv-parse's own `info.lines` is the line a record
 * ends on and counts a CRLF inside quotes twice, so on a large export it drifts far ahead.
 * quoteProblems finds the quoting mistakes a relaxed parse reads past. No kernel imports.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** A quoting mistake in one value (column is 1-based): a quote inside an unquoted value, or text after a closing quote. */
export interface CsvQuoteProblem {
  column: number;
  kind: 'quote-in-unquoted' | 'text-after-quote';
}

interface LineStart {
  offset: number;
  line: number;
  /** Empty line (or a comment line when comments are on): no record starts there. -1: not known yet. */
  skip: boolean | -1;
}

/**
 * Passes the decoded text on as UTF-8 bytes (what csv-parse counts in info.bytes) and remembers where
 * each physical line starts, so a record's byte range gives the line it starts on.
 */
export class LineIndex extends Transform {
  private offset = 0;
  private line = 1;
  private pendingCR = false;
  private readonly queue: LineStart[] = [{ offset: 0, line: 1, skip: -1 }];
  private head = 0;

  constructor(private readonly comments: boolean) {
    super({ decodeStrings: false });
  }

  private classify(entry: LineStart, byte: number): void {
    entry.skip = byte === 10 || byte === 13 || (this.comments && byte === 35);
  }

  override _transform(chunk: string | Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      const pos = this.offset + i;
      const tail = this.queue[this.queue.length - 1];
      if (this.pendingCR) {
        // A CR ended the previous chunk: with this LF the line starts one byte later.
        this.pendingCR = false;
        if (b === 10) {
          tail.offset = pos + 1;
          continue;
        }
      }
      if (tail.skip === -1 && tail.offset === pos) this.classify(tail, b);
      if (b !== 10 && b !== 13) continue;
      if (b === 13) {
        if (i + 1 < bytes.length) {
          if (bytes[i + 1] === 10) i++;
        } else this.pendingCR = true;
      }
      this.line++;
      this.queue.push({ offset: this.offset + i + 1, line: this.line, skip: -1 });
    }
    this.offset += bytes.length;
    done(null, bytes);
  }

  override _flush(done: TransformCallback): void {
    const last = this.queue[this.queue.length - 1];
    if (last.skip === -1) last.skip = true; // the end of the file
    done();
  }

  /** The line of the first line start in [from, to) where a record can start. */
  startLine(from: number, to: number): number {
    let fallback: number | null = null;
    for (let i = this.head; i < this.queue.length; i++) {
      const e = this.queue[i];
      if (e.offset < from) continue;
      if (e.offset >= to) break;
      fallback ??= e.line;
      if (e.skip !== true) return e.line;
    }
    return fallback ?? this.line;
  }

  /** Forgets line starts before `offset` (records up to there are read). */
  forget(offset: number): void {
    while (this.head < this.queue.length - 1 && this.queue[this.head].offset < offset) this.head++;
    if (this.head > 1024) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}

const isBreak = (c: string) => c === '\n' || c === '\r';

/** Quoting mistakes in the raw text of one record (RFC 4180: a quote only opens a value and closes it before a delimiter). */
export function quoteProblems(raw: string, delimiter: string, comments: boolean): CsvQuoteProblem[] {
  if (!raw.includes('"')) return [];
  let i = 0;
  // Blank and comment lines the parser passed over before the record.
  for (;;) {
    if (i < raw.length && isBreak(raw[i])) i++;
    else if (comments && raw[i] === '#') {
      while (i < raw.length && !isBreak(raw[i])) i++;
    } else break;
  }
  const problems: CsvQuoteProblem[] = [];
  const flag = (column: number, kind: CsvQuoteProblem['kind']) => {
    if (!problems.some((p) => p.column === column)) problems.push({ column, kind });
  };
  let column = 1;
  let state: 'start' | 'unquoted' | 'quoted' | 'after' = 'start';
  for (; i < raw.length; i++) {
    const c = raw[i];
    if (state === 'quoted') {
      if (c === '"') {
        if (raw[i + 1] === '"') i++;
        else state = 'after';
      }
      continue;
    }
    if (raw.startsWith(delimiter, i)) {
      column++;
      state = 'start';
      i += delimiter.length - 1;
      continue;
    }
    if (isBreak(c)) break;
    if (state === 'start') state = c === '"' ? 'quoted' : 'unquoted';
    else if (state === 'after') {
      flag(column, 'text-after-quote');
      state = 'unquoted';
    } else if (c === '"') flag(column, 'quote-in-unquoted');
  }
  return problems;
}
