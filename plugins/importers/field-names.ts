import type { ContentFieldType } from './coerce.js';
import type { ImportFieldKind } from './format-contract.js';
import { RESERVED_FIELD_NAMES } from '../content/public.js';

/** Field names the content plugin gives entries themselves (compared without case). */
const RESERVED = RESERVED_FIELD_NAMES;
const FIELD_NAME = /^[a-zA-Z][a-zA-Z0-9]{0,47}$/;
/** The scaffolded origin field (a system field the content plugin allows besides its name rule). */
export const SOURCE_FIELD = '_source_import';

/** Words of a source name: `post_date_gmt`, `Variant SKU`, `Body (HTML)`, `dateCreated`, `Größe`. */
function words(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean);
}

/** A valid content field name (camelCase, letters and digits, 48 at most) for a source field name. */
export function fieldNameFor(source: string): string {
  const parts = words(source).map((w) => w.toLowerCase());
  let name = parts.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
  if (!name) name = 'field';
  if (!/^[a-zA-Z]/.test(name)) name = `f${name}`;
  if (RESERVED.has(name.toLowerCase())) name = `source${name.charAt(0).toUpperCase()}${name.slice(1)}`;
  return name.slice(0, 48);
}

/** Unique (without case) valid names for a list of source fields, in order. */
export function uniqueFieldNames(sources: string[], taken: string[] = []): Map<string, string> {
  const used = new Set(taken.map((t) => t.toLowerCase()));
  const out = new Map<string, string>();
  for (const source of sources) {
    const base = fieldNameFor(source);
    let name = base;
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base.slice(0, 48 - String(n).length)}${n}`;
    used.add(name.toLowerCase());
    out.set(source, name);
  }
  return out;
}

export const isFieldName = (name: string) => FIELD_NAME.test(name) && !RESERVED.has(name.toLowerCase());

/** Path segments the content plugin's entry routes keep for themselves. */
const RESERVED_COLLECTIONS = ['presets', 'schema', 'batch'];

/** Whether a name given in the mappings is one the content plugin accepts for a collection. */
export const isCollectionName = (name: string) => /^[a-z][a-z0-9_]{0,47}$/.test(name) && !RESERVED_COLLECTIONS.includes(name);

/** A valid collection name (`ghost-wix-posts.csv` -> `ghost_wix_posts`). */
export function collectionNameFor(source: string): string {
  let name = source
    .replace(/\.[a-z0-9]{1,8}(\.gz)?$/i, '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!/^[a-z]/.test(name)) name = `c_${name}`;
  if (RESERVED_COLLECTIONS.includes(name)) name = `${name}_import`;
  return name.slice(0, 48).replace(/_+$/, '') || 'imported';
}

export type { ContentFieldType } from './coerce.js';
export { coerce } from './coerce.js';

/**
 * Scaffold: the content field type of an imported field kind. Media and relation values of a source are
 * its own references (URLs, source ids), not ids of this CMS, so they are kept as text.
 */
export const FIELD_TYPE_OF_KIND: Record<ImportFieldKind, ContentFieldType> = {
  text: 'text',
  // A plain long text: markdown is the content type that keeps any string of up to 1 MB exactly (unsanitised).
  longtext: 'markdown',
  richtext: 'richtext',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
  json: 'json',
  media: 'text',
  relation: 'text',
};

/** The admin UI widget a scaffolded field of each type defaults to (documented; the content schema has no widget hint). */
export const DEFAULT_WIDGETS: Record<ContentFieldType, string> = {
  text: 'input',
  richtext: 'rich-text-editor',
  markdown: 'markdown-editor',
  number: 'number-input',
  boolean: 'toggle',
  date: 'date-picker',
  json: 'code-editor',
  media: 'media-picker',
  relation: 'entry-picker',
  select: 'dropdown',
  email: 'email-input',
  url: 'url-input',
  color: 'color-picker',
  component: 'component-form',
  blocks: 'blocks-editor',
};
