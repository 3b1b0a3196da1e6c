/**
 * How a field's value is checked and stored: its zod schema, the API value -> column value conversion
 * (rich text sanitised here) and back. No database imports: the importers' worker task prepares rows
 * with these off the event loop (plugins/importers/prepare-batch.ts), exactly as the API checks them.
 */
import { z } from 'zod';
import type { FieldDefinition } from './field-types.js';
import { measureOf, takesPattern } from './field-rules.js';
import { sanitizeRichText } from './rich-text.js';
import { componentValueSchema } from './component-values.js';

/** Longest value of a text or select field: it fits an index on MariaDB (utf8mb4) next to the tenant. */
export const TEXT_MAX = 255;

const ID = z.string().uuid();

/** `#rrggbb` (either case; stored as sent). */
export const COLOR = /^#[0-9a-fA-F]{6}$/;

/** An absolute http(s) URL: other schemes (javascript:, data:) would be unsafe as links. */
const URL_VALUE = z
  .string()
  .max(TEXT_MAX)
  .refine((s) => /^https?:\/\//i.test(s) && URL.canParse(s), 'an http:// or https:// URL');

/** The zod schema of one field's value in an entry (null allowed: required is checked separately). */
export function valueSchema(field: FieldDefinition): z.ZodType {
  return withRules(field, baseSchema(field));
}

/** The field's `min`/`max` (inclusive) and `pattern` on top of its type's schema (field-rules.ts says which apply). */
function withRules(field: FieldDefinition, schema: z.ZodType): z.ZodType {
  const measure = measureOf(field);
  const { min, max } = field;
  let out = schema;
  if (measure && (min !== undefined || max !== undefined)) {
    const size = (v: unknown): number => (measure === 'value' ? (v as number) : (v as string | unknown[]).length);
    const unit = measure === 'value' ? '' : measure === 'length' ? ' characters' : ' items';
    // Only a value of the type's kind is measured: a wrong kind already has its issue from the type's schema.
    const kind = (v: unknown) =>
      measure === 'value' ? typeof v === 'number' : measure === 'length' ? typeof v === 'string' : Array.isArray(v);
    out = out.superRefine((v, ctx) => {
      if (!kind(v)) return;
      if (min !== undefined && size(v) < min) ctx.addIssue({ code: 'custom', message: `at least ${min}${unit}` });
      if (max !== undefined && size(v) > max) ctx.addIssue({ code: 'custom', message: `at most ${max}${unit}` });
    });
  }
  if (field.pattern !== undefined && takesPattern(field)) {
    const re = new RegExp(field.pattern);
    out = out.refine((v) => typeof v !== 'string' || re.test(v), `must match the pattern ${field.pattern}`);
  }
  return out;
}

function baseSchema(field: FieldDefinition): z.ZodType {
  switch (field.type) {
    case 'text':
      return z.string().max(TEXT_MAX);
    case 'email':
      return z.string().max(TEXT_MAX).email();
    case 'url':
      return URL_VALUE;
    case 'color':
      return z.string().regex(COLOR, 'a colour as #rrggbb');
    case 'richtext':
    case 'markdown':
      return z.string().max(1_000_000);
    case 'number':
      return z.number().finite();
    case 'boolean':
      return z.boolean();
    case 'date':
      return z.union([z.string().datetime({ offset: true }), z.string().date()]).transform((s) => new Date(s).toISOString());
    case 'select': {
      const one = z.enum(field.options as [string, ...string[]]);
      if (!field.multiple) return one;
      // A set of the options, in the order sent (a bare string is not a list: 400).
      // (No .max(): zod 4 applies length checks to a string too, adding a second issue to a bare string.)
      return z
        .array(one)
        .refine(
          (a) => !Array.isArray(a) || (a.length <= (field.options?.length ?? 0) && new Set(a).size === a.length),
          'each option at most once',
        );
    }
    case 'relation':
      // A many-relation: an ordered list of entry ids, each at most once (a bare id is not a list: 400).
      if (field.cardinality === 'many')
        return z
          .array(ID)
          .refine((a) => !Array.isArray(a) || a.length <= MANY_MAX, `at most ${MANY_MAX} entries`)
          .refine((a) => !Array.isArray(a) || new Set(a).size === a.length, 'each entry at most once');
      return ID;
    case 'media':
      return ID;
    case 'json':
      return z.unknown().refine((v) => v !== undefined && JSON.stringify(v).length <= 1_000_000, 'JSON of at most 1 MB');
    case 'component':
    case 'blocks':
      return componentValueSchema(field, valueSchema);
  }
}

/** Most entries a many-relation holds. */
export const MANY_MAX = 1000;

/** A relation holding an ordered list of entry ids (`cardinality: 'many'`). */
export const isManyRelation = (field: Pick<FieldDefinition, 'type' | 'cardinality'>): boolean =>
  field.type === 'relation' && field.cardinality === 'many';

/** A field whose value is a list stored as JSON text in a long-text column (a multiple select, a many-relation). */
export const isList = (field: Pick<FieldDefinition, 'type' | 'multiple' | 'cardinality'>): boolean =>
  (field.type === 'select' && field.multiple === true) || isManyRelation(field);

/** A field whose value is stored as JSON text: json, a multiple select, a component, blocks. */
const isJsonStored = (field: Pick<FieldDefinition, 'type' | 'multiple'>): boolean =>
  field.type === 'json' || field.type === 'component' || field.type === 'blocks' || isList(field);

export const columnName = (field: { name: string }) => `f_${field.name}`;

/** API value -> stored value: every writer of entry rows goes through here, so richtext is sanitised here (rich-text.ts). */
export function toColumn(field: FieldDefinition, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'richtext' && typeof value === 'string') return sanitizeRichText(value);
  if (field.type === 'date') return new Date(value as string).getTime();
  if (isJsonStored(field)) return JSON.stringify(value);
  return value;
}

/** Stored value -> API value. */
export function fromColumn(field: FieldDefinition, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'date') return new Date(Number(value)).toISOString();
  if (isJsonStored(field)) return JSON.parse(value as string);
  if (field.type === 'boolean') return value === true || value === 1 || value === '1';
  if (field.type === 'number') return Number(value);
  return value;
}
