/**
 * WXR namespaces and entity names. Elements are recognised by namespace URI, never by prefix: the
 * `wp` namespace URI carries the WXR version (`http://wordpress.org/export/1.2/`, `https://` in recent
 * exports), and a file may bind `wp` to something else or another prefix to the real URI.
 * Worker-side, no kernel imports.
 */

const WXR_NS = /^https?:\/\/wordpress\.org\/export\/(\d+\.\d+)\/?$/;
const EXCERPT_NS = /^https?:\/\/wordpress\.org\/export\/\d+\.\d+\/excerpt\/?$/;
const CONTENT_NS = /^https?:\/\/purl\.org\/rss\/1\.0\/modules\/content\/?$/;
const DC_NS = /^https?:\/\/purl\.org\/dc\/elements\/1\.1\/?$/;

/** Namespaces assumed when a file uses a well-known prefix without declaring it (with a warning). */
export const ASSUMED_PREFIXES: Record<string, string> = {
  wp: 'http://wordpress.org/export/1.2/',
  excerpt: 'http://wordpress.org/export/1.2/excerpt/',
  content: 'http://purl.org/rss/1.0/modules/content/',
  dc: 'http://purl.org/dc/elements/1.1/',
  wfw: 'http://wellformedweb.org/CommentAPI/',
};

/** The WXR version a namespace URI names (`1.2`), or null when it is not the WXR namespace. */
export function wxrNamespaceVersion(uri: string): string | null {
  return WXR_NS.exec(uri)?.[1] ?? null;
}

/**
 * Canonical key of an element: `wp:<local>`, `excerpt:<local>`, `content:<local>`, `dc:<local>`, the
 * bare name for RSS elements (no namespace), or null for any other namespace (ignored).
 */
export function elementKey(uri: string | undefined, local: string): string | null {
  if (!uri) return local;
  if (WXR_NS.test(uri)) return `wp:${local}`;
  if (EXCERPT_NS.test(uri)) return `excerpt:${local}`;
  if (CONTENT_NS.test(uri)) return `content:${local}`;
  if (DC_NS.test(uri)) return `dc:${local}`;
  return null;
}

const CORE_ENTITIES: Record<string, string> = { post: 'posts', page: 'pages', attachment: 'attachments' };
/** Entity names the format uses for other things: a custom post type of that name gets a suffix. */
const TAKEN = new Set(['categories', 'tags', 'terms', 'authors', 'comments', 'posts', 'pages', 'attachments']);

/**
 * Entity of a post type: `posts`, `pages`, `attachments`; a custom post type gets its own entity,
 * its name pluralised (`nav_menu_item` -> `nav_menu_items`, `wp_navigation` -> `wp_navigations`).
 */
export function postTypeEntity(postType: string): string {
  const core = CORE_ENTITIES[postType];
  if (core) return core;
  const name = postType.toLowerCase().replace(/[^a-z0-9_-]+/g, '_') || 'item';
  let plural: string;
  if (/[^aeiou]y$/.test(name)) plural = `${name.slice(0, -1)}ies`;
  else if (/(s|x|z|ch|sh)$/.test(name)) plural = `${name}es`;
  else plural = `${name}s`;
  return TAKEN.has(plural) ? `${name}_items` : plural;
}
