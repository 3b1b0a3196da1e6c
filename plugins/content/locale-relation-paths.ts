import type { WhereOptions } from 'sequelize';
import { localeStatusWhere, type EntryLocales, type LocaleChoice, type LocalizedColumns, type TableCollection } from './entry-locales.js';

/**
 * A relation path's target collection (`author.name`, `author.country.name`, an inverse field's source) in a list's
 * locale other than the default: the SQL of its localized fields there (the first value along the fallback chain, as
 * reads and the listed collection's own fields take it) and, for callers who see published entries only, which of its
 * entries are published there (a populated target not published in the locale is hidden from them: so is it from a
 * path). Undefined parts: the target's own columns and row status decide (no localized fields).
 */
export interface TargetInLocale {
  columns?: LocalizedColumns;
  published?: WhereOptions;
}

/** The targets' view in `choice`, or undefined in the default locale, in `*` and without locales. */
export function targetsInLocale(
  locales: EntryLocales | undefined,
  tenantId: string,
  choice: LocaleChoice,
  publishedOnly: boolean,
): ((target: TableCollection) => TargetInLocale) | undefined {
  if (!locales) return undefined;
  const defaultCode = locales.defaultCode();
  if (choice === undefined || choice === '*' || choice === defaultCode) return undefined;
  return (target) => ({
    // A path's subquery names the target's table by its model's name (list-filter.ts, select).
    columns: locales.columns(target, tenantId, choice, publishedOnly, target.model.name),
    published: (publishedOnly && localeStatusWhere(target, tenantId, choice, defaultCode, 'published')) || undefined,
  });
}
