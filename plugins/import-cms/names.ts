/** Entity-name helpers shared by the three CMS formats (worker-side and main-thread safe: no imports). */

/** `landing-page` / `Recipe Category` -> `landing_page` / `recipe_category`. */
export function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** A plain English plural, enough for content type names (`recipe` -> `recipes`, `category` -> `categories`). */
export function plural(name: string): string {
  const n = snake(name);
  if (!n) return n;
  if (/(s|media|data|info|content)$/.test(n)) return n;
  if (/[^aeiou]y$/.test(n)) return `${n.slice(0, -1)}ies`;
  if (/(x|z|ch|sh)$/.test(n)) return `${n}es`;
  return `${n}s`;
}

/** The file name without folders and known export extensions. */
export function baseName(filename: string): string {
  const last = filename.split(/[\\/]/).pop() ?? filename;
  return last.replace(/(\.jsonapi)?\.(json|jsonl|ndjson)$/i, '').replace(/\.(tar\.gz|tgz|tar)$/i, '');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/** Field names that suggest a file or image reference. */
export const MEDIA_NAME = /(^|_)(image|images|thumbnail|file|files|avatar|cover|photo|photos|logo|picture|icon|media|gallery)$/i;
