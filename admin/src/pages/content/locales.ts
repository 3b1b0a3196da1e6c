// Content locales in the admin UI (issue 36; API decisions, "Locales"; docs/features/localisation.md): the
// installation's locales, which fields of a collection are localized, the translation plugin's availability and
// the "out of date" rule of the entries list's translation status.
import { remote, type ApiSchemas } from '../../lib/remote';
import { session } from '../../lib/session.svelte';
import type { Collection, Entry, Field } from './content';
import { entryOutOfDate } from './locale-times';

export { entryOutOfDate, isOutOfDate, localeUpdatedAt } from './locale-times';

export type Locale = ApiSchemas['Locale'];

/** GET /api/locales (the default first); an installation without the route (older server) has none. */
export async function loadLocales(): Promise<Locale[]> {
  try {
    return await remote('GET /api/locales');
  } catch {
    return [];
  }
}

export const localizedFields = (c: Collection | null): Field[] => (c?.fields ?? []).filter((f) => f.localized);

/**
 * Whether a collection's pages offer locales: the installation has more than one, and the collection has a localized
 * field (a write in another locale to a collection without one would change the entry's shared row: nothing differs
 * between its locales).
 */
export const offersLocales = (c: Collection | null, locales: Locale[]): boolean => locales.length > 1 && localizedFields(c).length > 0;

/** The field types the translation plugin translates: text and markdown as text, richtext as HTML. */
export const TRANSLATABLE = new Set(['text', 'markdown', 'richtext']);
export const translatable = (f: Field): boolean => !!f.localized && TRANSLATABLE.has(f.type);

/** Whether translation is offered: the caller has ai:translate and GET /api/ai/translate/providers says one is configured. */
export async function translationAvailable(): Promise<boolean> {
  if (!session.can('ai:translate')) return false;
  try {
    return (await remote('GET /api/ai/translate/providers')).available;
  } catch {
    return false;
  }
}

/**
 * Translates the named fields of `source` (the entry read in the source locale) into `target` through
 * POST /api/ai/translate (strings mode: one request per format, text then HTML). Answers the translations by field;
 * empty values are left out. The entry mode of the route is not used: it reads the entry in the default locale and
 * `save: true` would write into the default locale's values.
 */
export async function translateFields(fields: Field[], source: Entry, from: string, target: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const format of ['text', 'html'] as const) {
    const group = fields.filter(
      (f) => (format === 'html') === (f.type === 'richtext') && typeof source[f.name] === 'string' && (source[f.name] as string).trim(),
    );
    if (!group.length) continue;
    const res = (await remote('POST /api/ai/translate', {
      body: { strings: group.map((f) => source[f.name] as string), source: from, target, format },
    })) as ApiSchemas['TranslatedStrings'];
    group.forEach((f, i) => (out[f.name] = res.translations[i]!));
  }
  return out;
}

/** Which locales an entry has a version in, and each one's status (from the list read in that locale). */
export interface LocaleState {
  code: string;
  exists: boolean;
  status: string;
  outOfDate: boolean;
}

/**
 * The translation status of each entry of a page: `byLocale` holds the same page read in each locale (the default's
 * read first). A locale is "exists" when the entry's `_locales` names it (the default always); its status is the
 * answer's `status` in that locale.
 */
export function translationStates(id: string, locales: Locale[], byLocale: Map<string, Entry[]>): LocaleState[] {
  const def = locales.find((l) => l.isDefault)?.code;
  const sourceEntry = def ? byLocale.get(def)?.find((e) => e._id === id) : undefined;
  return locales.map((l) => {
    const e = byLocale.get(l.code)?.find((x) => x._id === id);
    const codes = Array.isArray(e?._locales) ? (e!._locales as string[]) : [];
    const exists = l.isDefault || codes.includes(l.code);
    return {
      code: l.code,
      exists,
      status: exists ? (e?.status ?? 'draft') : 'missing',
      // Every answer carries the times of all the entry's locales: the default locale's read says it.
      outOfDate: exists && !l.isDefault && entryOutOfDate(sourceEntry ?? e, l.code, def),
    };
  });
}
