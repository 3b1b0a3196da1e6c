/**
 * How a field's value is checked and stored: its zod schema, the API value -> column value conversion
 * (rich text sanitised here) and back. No database imports: the importers' worker task prepares rows
 * with these off the event loop (plugins/importers/prepare-batch.ts), exactly as the API checks them.
 */
import { z } from 'zod';
import type { FieldDefinition } from './field-types.js';
import { sanitizeRichText } from './rich-text.js';

/** Longest value of a text or select field: it fits an index on MariaDB (utf8mb4) next to the tenant. */
export const TEXT_MAX = 255;

const ID = z.string().uuid();

/** The zod schema of one field's value in an entry (null allowed: required is checked separately). */
export function valueSchema(field: FieldDefinition): z.ZodType {
  switch (field.type) {
    case 'text':
      return z.string().max(TEXT_MAX);
    case 'richtext':
    case 'markdown':
      return z.string().max(1_000_000);
    case 'number':
      return z.number().finite();
    case 'boolean':
      return z.boolean();
    case 'date':
      return z.union([z.string().datetime({ offset: true }), z.string().date()]).transform((s) => new Date(s).toISOString());
    case 'select':
      return z.enum(field.options as [string, ...string[]]);
    case 'media':
    case 'relation':
      return ID;
    case 'json':
      return z.unknown().refine((v) => v !== undefined && JSON.stringify(v).length <= 1_000_000, 'JSON of at most 1 MB');
  }
}

export const columnName = (field: { name: string }) => `f_${field.name}`;

/** API value -> stored value: every writer of entry rows goes through here, so richtext is sanitised here (rich-text.ts). */
export function toColumn(field: FieldDefinition, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'richtext' && typeof value === 'string') return sanitizeRichText(value);
  if (field.type === 'date') return new Date(value as string).getTime();
  if (field.type === 'json') return JSON.stringify(value);
  return value;
}

/** Stored value -> API value. */
export function fromColumn(field: FieldDefinition, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'date') return new Date(Number(value)).toISOString();
  if (field.type === 'json') return JSON.parse(value as string);
  if (field.type === 'boolean') return value === true || value === 1 || value === '1';
  if (field.type === 'number') return Number(value);
  return value;
}
