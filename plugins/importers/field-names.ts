import type { ImportFieldKind } from '../../kernel/registries/contracts.js';
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

export type ContentFieldType = 'text' | 'richtext' | 'markdown' | 'number' | 'boolean' | 'date' | 'json' | 'media' | 'relation' | 'select';

/**
 * Scaffold: the content field type of an imported field kind. Media and relation values of a source are
 * its own references (URLs, source ids), not ids of this CMS, so they are kept as text.
 */
export const FIELD_TYPE_OF_KIND: Record<ImportFieldKind, ContentFieldType> = {
  text: 'text',
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
};

const TEXT_MAX = 255;

/**
 * A source value as the target field's type wants it, or `undefined` when it cannot be (the field is
 * then left out and a warning names it). Text longer than a text field holds is cut at 255 characters.
 */
export function coerce(value: unknown, type: ContentFieldType): unknown {
  if (value === null || value === undefined || value === '') return null;
  switch (type) {
    case 'text':
    case 'select': {
      const s = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
      return s.length > TEXT_MAX ? s.slice(0, TEXT_MAX) : s;
    }
    case 'richtext':
    case 'markdown':
      return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'number': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && value.trim() !== ''
            ? Number(value.replace(/,(?=\d{3}\b)/g, ''))
            : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const s = String(value).trim().toLowerCase();
      if (['1', 'true', 'yes', 'y', 'on', 'publish', 'published'].includes(s)) return true;
      if (['0', 'false', 'no', 'n', 'off'].includes(s)) return false;
      return undefined;
    }
    case 'date': {
      if (typeof value !== 'string' && typeof value !== 'number') return undefined;
      if (typeof value === 'string' && /^0000-00-00/.test(value)) return null;
      const s =
        typeof value === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(value)
          ? `${value.replace(' ', 'T')}${/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? '' : 'Z'}`
          : value;
      const t = new Date(s).getTime();
      return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
    }
    case 'json':
      return value;
    case 'media':
    case 'relation':
      return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? value : undefined;
  }
}
