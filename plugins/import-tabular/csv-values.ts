/**
 * Worker side: conservative typing of CSV cells, decided per column over the whole file. A column is a
 * number only when every non-empty cell is a plain decimal (no leading zeros such as `004`, no
 * thousands separators, no exponent, at most 15 digits; whole numbers of 10 or more digits, such as
 * phone numbers and codes, stay text), a boolean only when every cell is
 * true/false; everything else stays text. Empty cells become null.
 */
import type { ImportFieldKind } from '../importers/public.js';

const PLAIN_NUMBER = /^-?(?:0|[1-9]\d*)?(?:\.\d+)?$/;
const LEADING_ZERO = /^-?0\d/;
const BOOLEAN = /^(?:true|false)$/i;
/** `1,7` and `200.000.000` with `options.decimalComma`. */
const COMMA_NUMBER = /^-?\d{1,3}(?:\.\d{3})*(?:,\d+)?$|^-?\d+(?:,\d+)?$/;

export function toPlainNumber(text: string, decimalComma = false): number | null {
  let value = text.trim();
  if (decimalComma) {
    if (!COMMA_NUMBER.test(value) || LEADING_ZERO.test(value.replace(/\./g, ''))) return null;
    value = value.replace(/\./g, '').replace(',', '.');
  }
  if (value === '' || value === '-' || value === '.' || value === '-.' || !PLAIN_NUMBER.test(value) || LEADING_ZERO.test(value))
    return null;
  const digits = value.replace(/[^\d]/g, '').replace(/^0+/, '').length;
  if (digits > 15 || (!value.includes('.') && digits >= 10)) return null;
  return Number(value);
}

type ColumnKind = 'number' | 'boolean' | 'text';

/** Per-column evidence gathered over the rows. */
export class ColumnTypes {
  private readonly number: boolean[] = [];
  private readonly boolean: boolean[] = [];
  private readonly filled: boolean[] = [];

  constructor(private readonly decimalComma = false) {}

  see(cells: string[]): void {
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i].trim();
      if (cell === '') continue;
      this.filled[i] = true;
      if (this.number[i] !== false) this.number[i] = toPlainNumber(cell, this.decimalComma) !== null;
      if (this.boolean[i] !== false) this.boolean[i] = BOOLEAN.test(cell);
    }
  }

  kind(i: number): ColumnKind {
    if (!this.filled[i]) return 'text';
    if (this.number[i]) return 'number';
    if (this.boolean[i]) return 'boolean';
    return 'text';
  }

  /** The kinds to report for typed columns (text columns are left to the spool writer's inference). */
  fieldKinds(names: string[]): Record<string, ImportFieldKind> {
    const out: Record<string, ImportFieldKind> = {};
    names.forEach((name, i) => {
      const kind = this.kind(i);
      if (kind !== 'text') out[name] = kind;
    });
    return out;
  }

  value(i: number, raw: string | undefined): string | number | boolean | null {
    if (raw === undefined || raw.trim() === '') return null;
    switch (this.kind(i)) {
      case 'number':
        return toPlainNumber(raw, this.decimalComma);
      case 'boolean':
        return raw.trim().toLowerCase() === 'true';
      default:
        return raw;
    }
  }
}
