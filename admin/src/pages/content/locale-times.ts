// The "out of date" rule of translations (docs/features/localisation.md, "Admin UI"): pure functions over entry
// answers' `_localeUpdatedAt`, without imports the unit tier cannot load (test/unit/admin-locale-times.test.ts).
type Entry = Record<string, unknown>;

/**
 * When `code`'s localized values of an entry last changed, from the answer's `_localeUpdatedAt` (`{<code>: ISO time}`
 * for the default and each locale with a version; answered to callers who may write and on `?locale=*` reads; see
 * docs/features/localisation.md). Null when the answer does not say.
 */
export function localeUpdatedAt(e: Entry | undefined, code: string | undefined): number | null {
  const times = e?._localeUpdatedAt;
  if (!code || !times || typeof times !== 'object' || Array.isArray(times)) return null;
  const v = (times as Record<string, unknown>)[code];
  const t = typeof v === 'string' || typeof v === 'number' ? new Date(v).getTime() : NaN;
  return Number.isFinite(t) ? t : null;
}

/**
 * "Out of date": a translation (an entry's own version in a non-default locale) whose source (the default locale's
 * version) was written after it. Both times must be known; when either is missing nothing is claimed.
 */
export function isOutOfDate(sourceWrittenAt: number | null, translationWrittenAt: number | null): boolean {
  return sourceWrittenAt !== null && translationWrittenAt !== null && sourceWrittenAt > translationWrittenAt;
}

/** Whether `e` (any answer of the entry that carries `_localeUpdatedAt`) is out of date in `code` against the default `def`. */
export function entryOutOfDate(e: Entry | undefined, code: string, def: string | undefined): boolean {
  if (!def || code === def) return false;
  const codes = Array.isArray(e?._locales) ? (e!._locales as string[]) : [];
  return codes.includes(code) && isOutOfDate(localeUpdatedAt(e, def), localeUpdatedAt(e, code));
}
