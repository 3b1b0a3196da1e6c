// The admin UI's own language: message catalogues (svelte-i18n, ICU MessageFormat through
// intl-messageformat), the chosen locale (the user's preference, else the browser's languages), <html
// lang/dir>, and dates and numbers through Intl in that locale. docs/guides/admin-ui-languages.md tells
// how to add a string or a language.
//
// Catalogues are split by area: messages/<locale>/<area>.json holds the keys "<area>.…". A pseudo-RTL
// catalogue (ar-XB) is generated from English at start: every message wrapped in a right-to-left
// override, so the layout can be checked right-to-left without a translator.
import { get } from 'svelte/store';
import { addMessages, init, locale as localeStore, _ } from 'svelte-i18n';

type Dict = Record<string, unknown>;

/** The languages the UI speaks, with their names in themselves (the picker shows these). */
export const PSEUDO_RTL_LOCALE = 'ar-XB';
export const LANGUAGES: ReadonlyArray<{ code: string; name: string }> = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
  { code: PSEUDO_RTL_LOCALE, name: 'Pseudo-RTL (testing)' },
];
const RTL_LANGUAGES = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'yi']);
const STORAGE_KEY = 'cms.admin.locale';

const files = import.meta.glob<Dict>('./messages/*/*.json', { eager: true, import: 'default' });

/** { en: { account: {…}, shell: {…} }, de: {…} } from messages/<locale>/<area>.json. */
export function catalogues(): Record<string, Dict> {
  const out: Record<string, Dict> = {};
  for (const [path, dict] of Object.entries(files)) {
    const m = /\.\/messages\/([^/]+)\/([^/]+)\.json$/.exec(path);
    if (!m) continue;
    (out[m[1]!] ??= {})[m[2]!] = dict;
  }
  return out;
}

/** Every message of a catalogue wrapped in RIGHT-TO-LEFT OVERRIDE … POP DIRECTIONAL FORMATTING. */
export function pseudoRtl(dict: Dict): Dict {
  const out: Dict = {};
  for (const [k, v] of Object.entries(dict))
    out[k] = typeof v === 'string' ? `\u202e${v}\u202c` : v && typeof v === 'object' ? pseudoRtl(v as Dict) : v;
  return out;
}

/** A supported code for a wish ("de-AT" → "de"), or null. */
export function supported(wish: unknown): string | null {
  if (typeof wish !== 'string' || !wish) return null;
  const codes = LANGUAGES.map((l) => l.code);
  if (codes.includes(wish)) return wish;
  const base = wish.split('-')[0]!.toLowerCase();
  return codes.find((c) => c === base) ?? null;
}

/** The browser's first supported language, else English. */
export function browserLocale(): string {
  const wishes = typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]);
  for (const w of wishes) {
    const s = supported(w);
    if (s) return s;
  }
  return 'en';
}

export const isRtl = (code: string): boolean => RTL_LANGUAGES.has(code.split('-')[0]!.toLowerCase());

/** The locale in force, readable reactively by templates and formatters. */
export const i18n = $state({ locale: 'en', dir: 'ltr' as 'ltr' | 'rtl' });

let started = false;
export function startI18n(): void {
  if (started) return;
  started = true;
  const all = catalogues();
  for (const [code, dict] of Object.entries(all)) addMessages(code, dict as never);
  addMessages(PSEUDO_RTL_LOCALE, pseudoRtl(all.en ?? {}) as never);
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    /* storage blocked: the browser's language */
  }
  void init({ fallbackLocale: 'en', initialLocale: supported(stored) ?? browserLocale(), ignoreTag: true });
  localeStore.subscribe((code) => {
    const c = supported(code) ?? 'en';
    i18n.locale = c;
    i18n.dir = isRtl(c) ? 'rtl' : 'ltr';
    if (typeof document !== 'undefined') {
      document.documentElement.lang = c;
      document.documentElement.dir = i18n.dir;
    }
  });
}

/** Uses the user's preference (preferences.locale) when it is a supported one, else the browser's. */
export function useLocale(preference: unknown): void {
  const code = supported(preference) ?? browserLocale();
  try {
    if (supported(preference)) localStorage.setItem(STORAGE_KEY, code);
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    /* storage blocked */
  }
  void localeStore.set(code);
}

/** A message outside a component (toasts, errors built in TS), by its key, with its ICU values. */
export function t(key: string, values?: Record<string, string | number | boolean | Date | null | undefined>): string {
  void i18n.locale; // read reactively where a template calls t()
  return get(_)(key, { values });
}

// Dates and numbers: Intl in the chosen locale (reactive through i18n.locale).
const intlLocale = () => i18n.locale;
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(intlLocale(), options).format(n);
}
export function formatDate(value: string | number | Date | null | undefined, options?: Intl.DateTimeFormatOptions): string {
  if (value === null || value === undefined || value === '') return '';
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  return Number.isNaN(ms) ? String(value) : new Intl.DateTimeFormat(intlLocale(), options ?? { dateStyle: 'medium' }).format(ms);
}
export function formatDateTime(value: string | number | Date | null | undefined, options?: Intl.DateTimeFormatOptions): string {
  return formatDate(value, options ?? { dateStyle: 'medium', timeStyle: 'short' });
}
export function formatTime(value: string | number | Date | null | undefined): string {
  return formatDate(value, { timeStyle: 'short' });
}
/** "3 minutes ago" in the chosen language. */
export function formatRelative(amount: number, unit: Intl.RelativeTimeFormatUnit): string {
  return new Intl.RelativeTimeFormat(intlLocale(), { numeric: 'auto' }).format(amount, unit);
}
/** A page's title or sidebar label: the catalogue's pages.<slug>.title / .nav, else the given text (a
 *  third-party plugin's page names itself). */
export function pageText(path: string, field: 'title' | 'nav', fallback: string): string {
  const slug = path.replace(/^\/admin\/?/, '').replace(/[/:-]+/g, '_') || 'home';
  void i18n.locale;
  return get(_)(`pages.${slug}.${field}`, { default: fallback });
}
export { _ };
