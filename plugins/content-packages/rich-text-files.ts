/**
 * Media a rich-text value refers to: `src` and `href` attributes whose URL is `/files/<path>` (what the
 * editor's Image button inserts: the media item's url), so packages carry those media records (and files)
 * with the entry, and an import points the URLs at the target's copies. The HTML is the sanitised HTML
 * the content plugin stores (attributes in double quotes, `&` as `&amp;`); nothing else in it is touched.
 */

const ATTRIBUTE = /(\s(?:src|href)\s*=\s*")([^"]*)(")/gi;

const decodeEntities = (v: string) =>
  v.replace(
    /&(amp|quot|#39|#x27|lt|gt);/gi,
    (m, e: string) => ({ amp: '&', quot: '"', '#39': "'", '#x27': "'", lt: '<', gt: '>' })[e.toLowerCase()] ?? m,
  );
const encodeAttribute = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The storage path of a `/files/...` URL (segments decoded), or null for any other URL or a path that cannot be one. */
export function filesPath(url: string): string | null {
  const m = /^\/files\/([^?#]+)/.exec(url.trim());
  if (!m) return null;
  try {
    const segments = m[1]!.split('/').map((s) => decodeURIComponent(s));
    if (segments.some((s) => !s || s === '.' || s === '..' || s.includes('\0') || s.includes('/') || s.includes('\\'))) return null;
    return segments.join('/');
  } catch {
    return null;
  }
}

/** `/files/<path>`, each segment URL-encoded (the media plugin's url form). */
export const filesUrl = (path: string) => `/files/${path.split('/').map(encodeURIComponent).join('/')}`;

/** The storage paths a rich-text value refers to through `/files/` URLs (each once, in order). */
export function richTextFilePaths(html: unknown): string[] {
  if (typeof html !== 'string' || !html.includes('/files/')) return [];
  const out = new Set<string>();
  for (const m of html.matchAll(ATTRIBUTE)) {
    const path = filesPath(decodeEntities(m[2]!));
    if (path) out.add(path);
  }
  return [...out];
}

/** The HTML with each `/files/<path>` URL whose path `replace` maps given the new URL; other text unchanged. */
export function rewriteRichTextFiles(html: string, replace: (path: string) => string | null): string {
  if (!html.includes('/files/')) return html;
  return html.replace(ATTRIBUTE, (whole, before: string, value: string, after: string) => {
    const path = filesPath(decodeEntities(value));
    const url = path === null ? null : replace(path);
    return url === null ? whole : `${before}${encodeAttribute(url)}${after}`;
  });
}
