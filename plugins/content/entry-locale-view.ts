import type { Entry } from './entry-shape.js';
import type { FieldDefinition } from './field-types.js';
import type { LocaleChoice, LocaleVersion } from './entry-locales.js';

/**
 * One entry (its row's values: the default locale's) in `choice`, from its versions in other locales (`own`: those the
 * reader may see), as reads answer it (API decisions, "Locales"): `*` answers each localized field as `{<code>: value}`;
 * a locale takes each localized field from the first locale of its chain whose version holds it (else the row's) and
 * names those that did not come from it in `_fallbackFields`, and its status is that version's (an entry without a
 * version there is a draft in it). Every answer carries `_locale` and `_locales`. Changes `entry` in place.
 */
export function viewInLocale(
  entry: Entry,
  fields: FieldDefinition[],
  own: Map<string, Pick<LocaleVersion, 'data' | 'status'>>,
  at: { choice: LocaleChoice; chain: string[]; fallbackDefault: string },
): void {
  const { choice, chain, fallbackDefault } = at;
  const e = entry as unknown as Record<string, unknown>;
  if (choice === '*') {
    for (const f of fields) {
      const all: Record<string, unknown> = { [fallbackDefault]: e[f.name] };
      for (const [code, v] of own) if (Object.hasOwn(v.data, f.name)) all[code] = v.data[f.name];
      e[f.name] = all;
    }
  } else if (chain[0] !== fallbackDefault) {
    const fellBack: string[] = [];
    for (const f of fields) {
      const from = chain.find((code) => code === fallbackDefault || (own.get(code) && Object.hasOwn(own.get(code)!.data, f.name)));
      if (from !== fallbackDefault) e[f.name] = own.get(from!)!.data[f.name];
      if (from !== chain[0]) fellBack.push(f.name);
    }
    const version = own.get(chain[0]!);
    // The status in an answer is that locale's (API decisions, "Locales"); an entry without a version there is a draft in it.
    e.status = version?.status ?? 'draft';
    e._fallbackFields = fellBack;
  }
  e._locale = choice === '*' || choice === undefined ? fallbackDefault : choice;
  e._locales = [fallbackDefault, ...[...own.keys()].sort()];
}

/** `_localeUpdatedAt`: when the default's (`defaultAt`, else the entry's creation) and each version's values last changed. */
export function localeTimes(
  entry: Entry,
  own: Map<string, Pick<LocaleVersion, 'valuesAt'>>,
  times: Map<string, number> | undefined,
  fallbackDefault: string,
): void {
  const iso = (t: number | undefined) => (t !== undefined && Number.isFinite(t) ? new Date(t).toISOString() : null);
  const stamps: Record<string, string | null> = { [fallbackDefault]: iso(times?.get(fallbackDefault)) ?? String(entry.createdAt) };
  for (const [code, v] of own) stamps[code] = iso(v.valuesAt);
  (entry as unknown as Record<string, unknown>)._localeUpdatedAt = stamps;
}
