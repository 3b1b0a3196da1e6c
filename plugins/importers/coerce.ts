/**
 * Source values as a target field's type wants them. No runtime imports (the type below is erased): the
 * runner and the importers' worker task (prepare-task.ts) use it.
 */
import type { FieldType } from '../content/public.js';

/** The content plugin's field types. */
export type ContentFieldType = FieldType;

const TEXT_MAX = 255;

/**
 * A source value as the target field's type wants it, or `undefined` when it cannot be (the field is
 * then left out and a warning names it). Text longer than a text field holds is cut at 255 characters.
 */
export function coerce(value: unknown, type: ContentFieldType): unknown {
  if (value === null || value === undefined || value === '') return null;
  switch (type) {
    case 'text':
    case 'select':
    case 'email':
    case 'url':
    case 'color': {
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
    case 'component':
    case 'blocks':
      // Taken as sent (JSON text is read as JSON); the content checks it against the components.
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return undefined;
      }
    case 'media':
    case 'relation':
      return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? value : undefined;
  }
}
