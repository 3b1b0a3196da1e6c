// Shapes of the content API (GET /api/collections, entries) and small helpers shared by the content pages.
import { issueInWords } from '../../lib/errors';
import { ApiError } from '../../lib/remote';
import type { ApiSchemas, RouteBody, RouteResponse } from '../../lib/remote';

/** A field type, as the collection routes take it. */
export type FieldType = RouteBody<'POST /api/collections'>['fields'][number]['type'];
export const STATUSES = ['draft', 'published', 'archived'] as const;

/** A field as the pages read it: the declared one, with its known type and its editing widget (see asCollection). */
export type Field = Omit<ApiSchemas['Collection']['fields'][number], 'type'> & { type: FieldType; widget?: Widget; localized?: boolean };
/** An editing widget as the collection routes take it. */
export type Widget = NonNullable<RouteBody<'POST /api/collections'>['fields'][number]['widget']>;

/**
 * A collection as the pages read it. The content plugin's response schema (Collection in
 * plugins/content/routes-collections.ts) declares fields[].type as any string and leaves out `widget`,
 * while the server sends a known type and the widget: the answer is read as this shape here, in one place.
 */
export const asCollection = (c: ApiSchemas['Collection']): Collection => c as Collection;

/**
 * Each field type in the order the schema editor offers them: its label and the editing widgets that fit it
 * (the content plugin's list, plugins/content/field-types.ts; the first is the default).
 */
const TYPES: Record<FieldType, { label: string; widgets: readonly Widget[] }> = {
  text: { label: 'Text (one line)', widgets: ['input', 'textarea'] },
  richtext: { label: 'Rich text', widgets: ['rich-text-editor', 'textarea'] },
  markdown: { label: 'Markdown', widgets: ['markdown-editor', 'textarea'] },
  number: { label: 'Number', widgets: ['number-input'] },
  boolean: { label: 'Yes / no', widgets: ['toggle', 'checkbox'] },
  date: { label: 'Date and time', widgets: ['date-picker'] },
  select: { label: 'Choice (select)', widgets: ['dropdown', 'radio'] },
  media: { label: 'Media (file or image)', widgets: ['media-picker'] },
  relation: { label: 'Relation (another entry)', widgets: ['entry-picker'] },
  json: { label: 'JSON', widgets: ['code-editor'] },
  email: { label: 'E-mail address', widgets: ['email-input'] },
  url: { label: 'Web address (URL)', widgets: ['url-input'] },
  color: { label: 'Colour (#rrggbb)', widgets: ['color-picker'] },
  component: { label: 'Component', widgets: ['component-form'] },
  blocks: { label: 'Blocks', widgets: ['blocks-editor'] },
};
export const FIELD_TYPES = Object.keys(TYPES) as FieldType[];
export const TYPE_LABELS = Object.fromEntries(FIELD_TYPES.map((t) => [t, TYPES[t].label])) as Record<FieldType, string>;
export const FIELD_WIDGETS = Object.fromEntries(FIELD_TYPES.map((t) => [t, TYPES[t].widgets])) as Record<FieldType, readonly Widget[]>;
export const WIDGET_LABELS: Record<string, string> = {
  input: 'One line',
  textarea: 'Plain text area',
  'rich-text-editor': 'Rich text',
  'markdown-editor': 'Markdown with preview',
  'number-input': 'Number',
  toggle: 'Switch',
  checkbox: 'Checkbox',
  'date-picker': 'Date picker',
  dropdown: 'Dropdown',
  radio: 'Radio buttons',
  'media-picker': 'Media picker',
  'entry-picker': 'Entry picker',
  'code-editor': 'Code editor',
  'email-input': 'E-mail address',
  'url-input': 'Web address',
  'color-picker': 'Colour picker',
  'component-form': 'Component form',
  'blocks-editor': 'Blocks editor',
};
export type Collection = Omit<ApiSchemas['Collection'], 'fields'> & { fields: Field[] };
export type Entry = ApiSchemas['Entry'];
export type EntryList = RouteResponse<'GET /api/collections/:collection'>;
export type Revision = RouteResponse<'GET /api/collections/:collection/:entryId/revisions'>[number];

export const fieldLabel = (f: Field) =>
  f.label ||
  f.name.charAt(0).toUpperCase() +
    f.name
      .slice(1)
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();

/** A readable title for an entry: title, name, the first text field, else the slug. */
export function entryTitle(entry: Entry, fields: Field[] = []): string {
  for (const key of ['title', 'name']) if (typeof entry[key] === 'string' && entry[key]) return entry[key] as string;
  const text = fields.find((f) => f.type === 'text' && typeof entry[f.name] === 'string' && entry[f.name]);
  return text ? String(entry[text.name]) : entry.slug || entry._id;
}

/** A short text for a value in a table cell. */
export function cellText(value: unknown, field?: Field): string {
  if (value === null || value === undefined || value === '') return '–';
  if (field?.type === 'boolean') return value ? 'Yes' : 'No';
  if (field?.type === 'date') return new Date(String(value)).toLocaleString();
  if (field?.type === 'richtext')
    return String(value)
      .replace(/<[^>]*>/g, ' ')
      .slice(0, 80);
  if (field?.type === 'markdown')
    return String(value)
      .replace(/[#*_`>[\]()!-]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 80);
  if (Array.isArray(value) && field?.type === 'select') return value.join(', ').slice(0, 1000);
  if (Array.isArray(value) && field?.type === 'blocks')
    return value.length ? value.map((b) => String((b as { __component?: unknown })?.__component)).join(', ') : '–';
  if (Array.isArray(value) && field?.type === 'component') return `${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  if (typeof value === 'object') return JSON.stringify(value).slice(0, 80);
  return String(value).slice(0, 1000); // the list cuts long text with an ellipsis and keeps it whole in its title
}

/**
 * Field messages from a VALIDATION_ERROR: `body.<field>` (entries) or `body.fields.<i>.<prop>` (schemas)
 * become a map from the part after `prefix` to the message; other issues are returned apart.
 */
export function issuesByPath(err: unknown, prefix = 'body.'): { byPath: Record<string, string>; other: string[] } {
  const byPath: Record<string, string> = {};
  const other: string[] = [];
  if (!(err instanceof ApiError)) return { byPath, other };
  for (const i of err.issues) {
    if (i.path.startsWith(prefix) && i.path.length > prefix.length) {
      const key = i.path.slice(prefix.length);
      byPath[key] = byPath[key] ? `${byPath[key]}; ${i.message}` : i.message;
    } else other.push(issueInWords(i));
  }
  return { byPath, other };
}

/** `2026-11-22T10:30` for an <input type="datetime-local"> from an ISO time (local time zone). */
export function toLocalInput(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  const d = new Date(typeof value === 'number' ? value : String(value));
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export const statusClass = (s: string) => (s === 'published' ? 'ok' : s === 'archived' ? 'bad' : 'warn');

/** A field whose value is a list: a multiple select, a many-relation (an ordered list of entry ids). */
export const isListField = (f: Pick<Field, 'type' | 'multiple' | 'cardinality'>): boolean =>
  (f.type === 'select' && !!f.multiple) || (f.type === 'relation' && f.cardinality === 'many');

/** A reusable component (GET /api/components), its fields read as the pages read a collection's. */
export type ComponentDef = Omit<ApiSchemas['Component'], 'fields'> & { fields: Field[] };
export const asComponent = (c: ApiSchemas['Component']): ComponentDef => c as ComponentDef;

/** Where each component is used: `collection posts`, `component hero`, from their component and blocks fields. */
export function componentUses(collections: Collection[], components: ComponentDef[]): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  const note = (owner: string, fields: Field[]) => {
    for (const f of fields)
      for (const used of f.type === 'component' && f.component ? [f.component] : f.type === 'blocks' ? (f.components ?? []) : [])
        uses.set(used, [...(uses.get(used) ?? []), `${owner}.${f.name}`]);
  };
  for (const c of collections) note(c.name, c.fields);
  for (const c of components) note(`${c.name} (component)`, c.fields);
  return uses;
}
