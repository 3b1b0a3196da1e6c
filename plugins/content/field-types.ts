import { DataTypes, type ModelAttributeColumnOptions } from 'sequelize';
import { z } from 'zod';
import { measureOf, patternProblem, takesMultiple, takesPattern, type RuleSubject } from './field-rules.js';
import { TEXT_MAX, isList, isManyRelation, valueSchema } from './field-values.js';
import { FIELD_NAME_RULE, RESERVED_FIELD_NAMES, isFieldNameFormat } from './names.js';

/** The value codec (no database): field-values.ts, loaded by worker tasks too. */
export { TEXT_MAX, valueSchema, columnName, toColumn, fromColumn, isList, isManyRelation, MANY_MAX } from './field-values.js';

/** The field types of the API decisions, and `markdown` (Markdown source; rendered by rich-text.ts renderMarkdown). */
export const FIELD_TYPES = [
  'text',
  'richtext',
  'markdown',
  'number',
  'boolean',
  'date',
  'select',
  'media',
  'relation',
  'json',
  'email',
  'url',
  'color',
  'component',
  'blocks',
] as const;
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
  email: ['email-input'],
  url: ['url-input'],
  color: ['color-picker'],
  component: ['component-form'],
  blocks: ['blocks-editor'],
};
const ALL_WIDGETS = [...new Set(Object.values(FIELD_WIDGETS).flat())] as [string, ...string[]];

/** Long values (a MEDIUMTEXT column): no index, no unique, no sort. */
export const LONG_TEXT_TYPES: readonly FieldType[] = ['richtext', 'markdown', 'json', 'component', 'blocks'];
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
    /** relation: one entry id (the default) or an ordered list of them. */
    cardinality: z.enum(['one', 'many']).optional(),
    /** relation: a read-only field of this name on the target lists the entries pointing at it. */
    inverseName: z.string().refine(isFieldNameFormat, `the inverse name ${FIELD_NAME_RULE}`).optional(),
    /** The admin UI's editing widget (FIELD_WIDGETS lists those that fit each type). */
    widget: z.enum(ALL_WIDGETS).optional(),
    /** select: the value is a list of its options. */
    multiple: z.boolean().optional(),
    /** Inclusive bounds (field-rules.ts): a number's value; the length of text, email, url; the items of a multiple select. */
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
    /** text: a regular expression the value must match (field-rules.ts patternProblem). */
    pattern: z.string().optional(),
    /** component: the component it holds (components-service.ts). */
    component: z.string().min(1).max(64).optional(),
    /** component: the value is an array of such objects. */
    repeatable: z.boolean().optional(),
    /** blocks: the components its items may be. */
    components: z.array(z.string().min(1).max(64)).min(1).max(50).optional(),
    /** One value per locale (API decisions, "Locales"; entry-locales.ts); other fields are shared by every locale. */
    localized: z.boolean().optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    ruleIssues(f).forEach(([path, message]) => ctx.addIssue({ code: 'custom', path: [path], message }));
    if (RESERVED_FIELD_NAMES.has(f.name.toLowerCase()))
      ctx.addIssue({ code: 'custom', path: ['name'], message: `'${f.name}' is reserved: every entry already has it` });
    if (f.type === 'select' && !f.options) ctx.addIssue({ code: 'custom', path: ['options'], message: 'a select field lists its options' });
    if (f.type !== 'select' && f.options) ctx.addIssue({ code: 'custom', path: ['options'], message: 'only select fields have options' });
    if (f.type === 'relation' && !f.collection)
      ctx.addIssue({ code: 'custom', path: ['collection'], message: 'a relation field names its target collection' });
    if (f.type !== 'relation' && f.collection)
      ctx.addIssue({ code: 'custom', path: ['collection'], message: 'only relation fields name a collection' });
    for (const key of ['cardinality', 'inverseName'] as const)
      if (f.type !== 'relation' && f[key] !== undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `only relation fields take ${key}` });
    componentIssues(f).forEach(([path, message]) => ctx.addIssue({ code: 'custom', path: [path], message }));
    if (f.localized && (f.unique || f.inverseName !== undefined))
      ctx.addIssue({ code: 'custom', path: ['localized'], message: 'a localized field cannot be unique or have an inverse field' });
    if (f.widget && !FIELD_WIDGETS[f.type].includes(f.widget))
      ctx.addIssue({ code: 'custom', path: ['widget'], message: `a ${f.type} field uses ${FIELD_WIDGETS[f.type].join(' or ')}` });
    if ((f.unique || f.indexed) && (NOT_INDEXABLE.includes(f.type) || isList(f)))
      ctx.addIssue({
        code: 'custom',
        path: ['indexed'],
        message: `${isManyRelation(f) ? 'many-relation' : isList(f) ? 'multiple select' : f.type} fields cannot be indexed or unique`,
      });
    // A select without options, or a field with bad rules, has no value schema (their issues are reported above).
    if (f.default !== undefined && f.default !== null && !(f.type === 'select' && !f.options) && !ruleIssues(f).length && !nests(f)) {
      const checked = valueSchema(f as FieldDefinition).safeParse(f.default);
      if (!checked.success)
        ctx.addIssue({ code: 'custom', path: ['default'], message: `not a valid ${f.type}: ${checked.error.issues[0]?.message}` });
    }
  });
export type FieldDefinition = z.output<typeof fieldSchema>;

const nests = (f: { type: string }) => f.type === 'component' || f.type === 'blocks';

/** The component keys of a field: `component` (and `repeatable`) for a component field, `components` for blocks. */
function componentIssues(f: { type: string; component?: string; repeatable?: boolean; components?: string[]; default?: unknown }) {
  const out: Array<[string, string]> = [];
  if (f.type === 'component' && !f.component) out.push(['component', 'a component field names its component']);
  if (f.type !== 'component' && f.component !== undefined) out.push(['component', 'only component fields name a component']);
  if (f.type !== 'component' && f.repeatable !== undefined) out.push(['repeatable', 'only component fields are repeatable']);
  if (f.type === 'blocks' && !f.components) out.push(['components', 'a blocks field lists its components']);
  if (f.type !== 'blocks' && f.components !== undefined) out.push(['components', 'only blocks fields list components']);
  if (f.components && new Set(f.components).size !== f.components.length) out.push(['components', 'each component at most once']);
  if (nests(f) && f.default !== undefined) out.push(['default', `a ${f.type} field takes no default (the fields inside it do)`]);
  return out;
}

/** The rules a field carries that do not fit its type or each other (field-rules.ts lists which type takes which). */
function ruleIssues(f: RuleSubject & { min?: number; max?: number; pattern?: string }): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (f.multiple !== undefined && !takesMultiple(f)) out.push(['multiple', 'only select fields take multiple']);
  const measure = measureOf(f);
  for (const key of ['min', 'max'] as const) {
    const v = f[key];
    if (v === undefined) continue;
    if (!measure)
      out.push([
        key,
        `${key} applies to number, text, email, url, multiple select, many-relation, repeatable component and blocks fields, not to a ${f.type} field`,
      ]);
    else if (measure !== 'value' && (!Number.isInteger(v) || v < 0))
      out.push([key, `${key} counts ${measure}: a whole number of at least 0`]);
    else if (measure === 'length' && v > TEXT_MAX) out.push([key, `${key} is a length of at most ${TEXT_MAX}`]);
  }
  if (f.min !== undefined && f.max !== undefined && f.min > f.max) out.push(['min', `min (${f.min}) is greater than max (${f.max})`]);
  if (f.pattern !== undefined) {
    const problem = takesPattern(f) ? patternProblem(f.pattern) : 'only text fields take a pattern';
    if (problem) out.push(['pattern', problem]);
  }
  return out;
}

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
    email: DataTypes.STRING(TEXT_MAX),
    url: DataTypes.STRING(TEXT_MAX),
    color: DataTypes.STRING(7),
    component: longText(dialect),
    blocks: longText(dialect),
  }[field.type];
  // A multiple select is a JSON list of its options (up to 500 of up to 255 characters each); a many-relation of entry ids.
  if (isList(field)) return { type: longText(dialect), allowNull: true };
  return { type, allowNull: true };
}
