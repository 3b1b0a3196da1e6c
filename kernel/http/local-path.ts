/**
 * The one rule for "a path on this site" (returnTo after signing in, the identity providers' return
 * address, any redirect a request names). No imports: the admin UI bundles this same file.
 *
 * A local path starts with exactly one `/`; neither the value nor the value decoded once more starts
 * with `//` or holds a backslash, a control character (tab, CR, LF among them) or a line separator
 * (browsers read `/\host` and `/<TAB>/host` as `//host`, another site); and what the URL parser makes
 * of it stays on the same origin (no scheme, no host). Spaces inside a query are allowed.
 */
export function isLocalPath(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return false;
  let decoded = value;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    // A stray `%` (a path such as /100%) is checked as written.
  }
  for (const text of [value, decoded]) {
    if (!text.startsWith('/') || text.startsWith('//') || /[\\\p{Cc}\p{Zl}\p{Zp}]/u.test(text)) return false;
  }
  try {
    return new URL(value, 'http://local.invalid').origin === 'http://local.invalid';
  } catch {
    return false;
  }
}

/** `value` when it is a local path, otherwise `fallback`. */
export function localPathOr(value: unknown, fallback: string): string {
  return isLocalPath(value) ? value : fallback;
}
