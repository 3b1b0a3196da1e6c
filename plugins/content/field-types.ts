import { DataTypes, type ModelAttributeColumnOptions } from 'sequelize';
import { z } from 'zod';
import { TEXT_MAX, valueSchema } from './field-values.js';
import { FIELD_NAME_RULE, RESERVED_FIELD_NAMES, isFieldNameFormat } from './names.js';

/** The value codec (no database): field-values.ts, loaded by worker tasks too. */
export { TEXT_MAX, valueSchema, columnName, toColumn, fromColumn } from './field-values.js';

/** The field types of the API decisions, and `markdown` (Markdown source; rendered by rich-text.ts renderMarkdown). */
export const FIELD_TYPES = ['text', 'richtext', 'markdown', 'number', 'boolean', 'date', 'select', 'media', 'relation', 'json'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * The admin UI's editing widget per field type (a hint stored with the field; the first is the default).
 * Importers' scaffold mode sets the default; a schema may pick another that fits the type.
 */
export const FIELD_WIDGETS: Record<FieldType, readonly string[]> = {
  text: ['input', 'textarea'],
  richtext: ['rich-text-editor', 'textarea'],
  markdown: ['markdown-editor', 'textarea'],
  number: ['number-input'],
  boolean: ['toggle', 'checkbox'],
  date: ['date-picker'],
  select: ['dropdown', 'radio'],
  media: ['media-picker'],
  relation: ['entry-picker'],
  json: ['code-editor'],
};
const ALL_WIDGETS = [...new Set(Object.values(FIELD_WIDGETS).flat())] as [string, ...string[]];

/** Long values (a MEDIUMTEXT column): no index, no unique, no sort. */
export const LONG_TEXT_TYPES: readonly FieldType[] = ['richtext', 'markdown', 'json'];
const NOT_INDEXABLE = LONG_TEXT_TYPES;

/** The naming rules (one module the admin UI bundles too). */
export { RESERVED_FIELD_NAMES } from './names.js';

export const fieldSchema = z
  .object({
    // `_source_import`: the one system field name outside the rule (the importers' scaffold records an entry's origin in it).
    name: z.string().refine(isFieldNameFormat, `the name ${FIELD_NAME_RULE}`),
    type: z.enum(FIELD_TYPES),
    label: z.string().min(1).max(191).optional(),
    required: z.boolean().optional(),
    unique: z.boolean().optional(),
    indexed: z.boolean().optional(),
    default: z.unknown().optional(),
    /** select: the allowed values. */
    options: z.array(z.string().min(1).max(TEXT_MAX)).min(1).max(500).optional(),
    /** relation: the target collection. */
    collection: z.string().optional(),
    /** The admin UI's editing widget (FIELD_WIDGETS lists those that fit each type). */
    widget: z.enum(ALL_WIDGETS).optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (RESERVED_FIELD_NAMES.has(f.name.toLowerCase()))
      ctx.addIssue({ code: 'custom', path: ['name'], message: `'${f.name}' is reserved: every entry already has it` });
    if (f.type === 'select' && !f.options) ctx.addIssue({ code: 'custom', path: ['options'], message: 'a select field lists its options' });
    if (f.type !== 'select' && f.options) ctx.addIssue({ code: 'custom', path: ['options'], message: 'only select fields have options' });
    if (f.type === 'relation' && !f.collection)
      ctx.addIssue({ code: 'custom', path: ['collection'], message: 'a relation field names its target collection' });
    if (f.type !== 'relation' && f.collection)
      ctx.addIssue({ code: 'custom', path: ['collection'], message: 'only relation fields name a collection' });
    if (f.widget && !FIELD_WIDGETS[f.type].includes(f.widget))
      ctx.addIssue({ code: 'custom', path: ['widget'], message: `a ${f.type} field uses ${FIELD_WIDGETS[f.type].join(' or ')}` });
    if ((f.unique || f.indexed) && NOT_INDEXABLE.includes(f.type))
      ctx.addIssue({ code: 'custom', path: ['indexed'], message: `${f.type} fields cannot be indexed or unique` });
    // A select without options has no value schema (its issue is reported above).
    if (f.default !== undefined && f.default !== null && !(f.type === 'select' && !f.options)) {
      const checked = valueSchema(f as FieldDefinition).safeParse(f.default);
      if (!checked.success)
        ctx.addIssue({ code: 'custom', path: ['default'], message: `not a valid ${f.type}: ${checked.error.issues[0]?.message}` });
    }
  });
export type FieldDefinition = z.output<typeof fieldSchema>;

/** MEDIUMTEXT (16 MB) on MariaDB; SQLite has one TEXT type. */
export const longText = (dialect: string) => (dialect === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium'));

/** The table column of a field (f_<name>); nullable: required is checked by the API, old rows lack new fields. */
export function columnOf(field: FieldDefinition, dialect: string): ModelAttributeColumnOptions {
  const type = {
    text: DataTypes.STRING(TEXT_MAX),
    richtext: longText(dialect),
    markdown: longText(dialect),
    number: DataTypes.DOUBLE,
    boolean: DataTypes.BOOLEAN,
    date: DataTypes.BIGINT,
    select: DataTypes.STRING(TEXT_MAX),
    media: DataTypes.STRING(36),
    relation: DataTypes.STRING(36),
    json: longText(dialect),
  }[field.type];
  return { type, allowNull: true };
}
