/**
 * Turns collected WXR elements into normalised entities: items (posts, pages, attachments, custom post
 * types) with their comments, authors, categories, tags and custom-taxonomy terms.
 * Worker-side, no kernel imports (type-only contract imports).
 */
import type { ImportedEntity, ImportFieldKind } from '../importers/public.js';
import { phpUnserialize, type PhpValue } from './php-unserialize.js';
import { attachmentFile } from './wxr-attachment.js';
import { postTypeEntity } from './wxr-names.js';
import { children, rawTextOf, textOf, type WxrNode } from './wxr-node.js';
import { itemLanguage, noteItem, polylangTerm, POLYLANG_TAXONOMIES, wpmlLanguage } from './wxr-languages.js';
import type { ReferencedTerms } from './wxr-referenced.js';

export interface EntityOut {
  entity: ImportedEntity;
  kinds?: Record<string, ImportFieldKind>;
}

export interface RecordContext {
  warn(message: string, line?: number): void;
  /** Largest nesting a decoded meta value may have. */
  metaDepth: number;
  /** Custom-field (non-internal postmeta) keys seen. */
  customFields: Set<string>;
  /**
   * Advanced Custom Fields keys seen: a custom field whose companion `_<key>` meta names its ACF field
   * definition (`field_<id>`), as ACF stores every value it manages.
   */
  acfFields: Set<string>;
  /** Shortcodes seen in contents and excerpts: name -> occurrences (at most MAX_SHORTCODE_NAMES names). */
  shortcodes: Map<string, number>;
  /** Categories, tags and authors the items name (the undeclared ones become records at the end). */
  referenced?: ReferencedTerms;
  /**
   * Polylang's translation groups (`wp:term` of the taxonomy `post_translations`, declared before the items): group
   * slug -> [language, post id] in the order Polylang lists them.
   */
  translationGroups?: Map<string, Array<[string, string]>>;
  /** Polylang's term translation groups (`term_translations`): term id -> its language and its group's [language, term id]. */
  termGroups?: Map<string, { lang: string; members: Array<[string, string]> }>;
  /** Items with a language read so far: post id -> external id (a WPML duplicate joins its original's). */
  itemIds?: Map<string, string>;
}

const MAX_SHORTCODE_NAMES = 100;
/** An opening shortcode tag: `[name`, then a space, `]` or `/`; not a Markdown link (`[text](url)`). */
const SHORTCODE = /\[([A-Za-z][\w-]{0,39})(?=[\s\]/])(?:[^\][]{0,2000})\](?!\()/g;

/** Counts the shortcodes of a text into ctx.shortcodes (the text itself is never changed). */
export function countShortcodes(text: string, into: Map<string, number>): void {
  if (!text.includes('[')) return;
  for (const m of text.matchAll(SHORTCODE)) {
    const name = m[1]!.toLowerCase();
    if (!into.has(name) && into.size >= MAX_SHORTCODE_NAMES) continue;
    into.set(name, (into.get(name) ?? 0) + 1);
  }
}

const ACF_FIELD_KEY = /^field_[0-9a-z]+$/i;

const POST_KINDS: Record<string, ImportFieldKind> = {
  content: 'richtext',
  excerpt: 'richtext',
  author: 'relation',
  parent: 'relation',
  categories: 'relation',
  tags: 'relation',
  featuredImage: 'relation',
  terms: 'json',
  meta: 'json',
  internalMeta: 'json',
  date: 'date',
  modified: 'date',
};
const COMMENT_KINDS: Record<string, ImportFieldKind> = {
  post: 'relation',
  parent: 'relation',
  content: 'richtext',
  meta: 'json',
  date: 'date',
};
const TERM_KINDS: Record<string, ImportFieldKind> = { parent: 'relation', meta: 'json' };

/** WXR `YYYY-MM-DD hh:mm:ss`: the GMT value as ISO with Z, else the local value without zone, else the RSS pubDate. */
function wpDate(gmt: string, local: string, pubDate = ''): string | undefined {
  const shape = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
  if (shape.test(gmt) && !gmt.startsWith('0000')) return `${gmt.replace(' ', 'T')}Z`;
  if (shape.test(local) && !local.startsWith('0000')) return local.replace(' ', 'T');
  const parsed = pubDate ? new Date(pubDate) : null;
  return parsed && !Number.isNaN(parsed.getTime()) && !pubDate.startsWith('Mon, 30 Nov -0001') ? parsed.toISOString() : undefined;
}

const int = (text: string): number | undefined => (/^-?\d{1,15}$/.test(text) ? Number(text) : undefined);
/** A post/term/comment id reference: null for 0 or empty. */
const ref = (text: string): string | null => (text === '' || text === '0' ? null : text);

/** Meta value: PHP-serialized plain data decoded, anything else kept as written. */
export function metaValue(raw: string, depth: number): PhpValue {
  const decoded = phpUnserialize(raw, depth);
  return decoded === undefined ? raw : decoded;
}

/** `wp:postmeta` / `wp:commentmeta` / `wp:termmeta` pairs: key -> value (an array when a key repeats). */
function readMeta(nodes: WxrNode[], depth: number): Array<[string, PhpValue]> {
  const values = new Map<string, PhpValue[]>();
  for (const node of nodes) {
    const key = textOf(node, 'wp:meta_key');
    if (!key) continue;
    const value = metaValue(rawTextOf(node, 'wp:meta_value') ?? '', depth);
    const list = values.get(key);
    if (list) list.push(value);
    else values.set(key, [value]);
  }
  return [...values].map(([key, list]) => [key, list.length === 1 ? list[0]! : list]);
}

/** Core WordPress meta keys without the leading underscore of internal keys. */
const CORE_META_KEYS = new Set(['enclosure', 'footnotes']);
/** Postmeta written by WordPress itself (or plugins' private keys): not custom fields. */
export const isInternalMetaKey = (key: string): boolean => key.startsWith('_') || CORE_META_KEYS.has(key);

const asObject = (entries: Array<[string, PhpValue]>): Record<string, PhpValue> => Object.fromEntries(entries);

/** `wp:author` -> authors (login as the external id; passwords are never part of WXR). */
export function authorRecord(node: WxrNode): EntityOut | null {
  const login = textOf(node, 'wp:author_login');
  const id = textOf(node, 'wp:author_id');
  if (!login && !id) return null;
  const data: Record<string, unknown> = {
    login: login || null,
    email: textOf(node, 'wp:author_email') || null,
    displayName: textOf(node, 'wp:author_display_name') || login || null,
    firstName: textOf(node, 'wp:author_first_name') || null,
    lastName: textOf(node, 'wp:author_last_name') || null,
  };
  if (int(id) !== undefined) data.wpId = int(id);
  return { entity: { entity: 'authors', externalId: login || `author-${id}`, data, line: node.line } };
}

/** `wp:category` -> categories (slug as the external id, parent by slug). */
export function categoryRecord(node: WxrNode, ctx: RecordContext): EntityOut | null {
  const name = textOf(node, 'wp:cat_name');
  const slug = textOf(node, 'wp:category_nicename') || name;
  if (!slug) return null;
  return termOut(
    'categories',
    slug,
    {
      name: name || slug,
      slug,
      parent: ref(textOf(node, 'wp:category_parent')),
      description: rawTextOf(node, 'wp:category_description')?.trim() ?? '',
    },
    node,
    ctx,
  );
}

/** `wp:tag` -> tags. */
export function tagRecord(node: WxrNode, ctx: RecordContext): EntityOut | null {
  const name = textOf(node, 'wp:tag_name');
  const slug = textOf(node, 'wp:tag_slug') || name;
  if (!slug) return null;
  return termOut('tags', slug, { name: name || slug, slug, description: rawTextOf(node, 'wp:tag_description')?.trim() ?? '' }, node, ctx);
}

/**
 * `wp:term`: terms of the `category` and `post_tag` taxonomies are the same categories and tags (recent
 * exports list them twice); every other taxonomy (nav_menu, post_format, custom ones) -> terms.
 */
export function termRecord(node: WxrNode, ctx: RecordContext): EntityOut | null | 'consumed' {
  const taxonomy = textOf(node, 'wp:term_taxonomy');
  const name = textOf(node, 'wp:term_name');
  const slug = textOf(node, 'wp:term_slug') || name;
  if (!slug || !taxonomy) return null;
  const description = rawTextOf(node, 'wp:term_description')?.trim() ?? '';
  if (POLYLANG_TAXONOMIES.has(taxonomy)) return polylangTerm(taxonomy, slug, description, ctx);
  const parent = ref(textOf(node, 'wp:term_parent'));
  if (taxonomy === 'category') return termOut('categories', slug, { name: name || slug, slug, parent, description }, node, ctx);
  if (taxonomy === 'post_tag') return termOut('tags', slug, { name: name || slug, slug, description }, node, ctx);
  return termOut(
    'terms',
    `${taxonomy}:${slug}`,
    { name: name || slug, slug, taxonomy, parent: parent ? `${taxonomy}:${parent}` : null, description },
    node,
    ctx,
  );
}

function termOut(entity: string, externalId: string, data: Record<string, unknown>, node: WxrNode, ctx: RecordContext): EntityOut {
  const id = int(textOf(node, 'wp:term_id'));
  if (id !== undefined) data.wpId = id;
  const meta = readMeta(children(node, 'wp:termmeta'), ctx.metaDepth);
  if (meta.length) data.meta = asObject(meta);
  return { entity: { entity, externalId, data, line: node.line }, kinds: TERM_KINDS };
}

/** Item status -> entity status: `publish` is published; draft, pending, private, future and trash are drafts. */
function itemStatus(status: string): 'draft' | 'published' | undefined {
  if (status === 'publish') return 'published';
  if (status === '' || status === 'inherit') return undefined;
  return 'draft';
}

/** What names an item: its post type (and the entity it maps to), its WordPress id, guid and status. */
interface ItemIds {
  postType: string;
  entity: string;
  wpId: string;
  guid: string;
  wpStatus: string;
}

/**
 * An `<item>`: the post (of whatever post type) and then its comments, which name the post's
 * external id in `post`. `ordinal` (1-based item number) names items that carry no id at all.
 */
export function itemRecords(node: WxrNode, ordinal: number, ctx: RecordContext): EntityOut[] {
  const postType = textOf(node, 'wp:post_type') || 'post';
  const ids: ItemIds = {
    postType,
    entity: postTypeEntity(postType),
    wpId: textOf(node, 'wp:post_id'),
    guid: textOf(node, 'guid'),
    wpStatus: textOf(node, 'wp:status'),
  };
  const { entity } = ids;
  const ownId = ids.wpId || ids.guid || `item-${ordinal}`;
  const data = itemFields(node, ids, ctx);
  const language = itemLanguage(node, ctx);
  Object.assign(data, itemTaxonomies(node, ctx));
  const internalMeta = itemMeta(node, data, ctx);
  // Posts, pages, media (Polylang's and WPML's media translation) and custom post types alike.
  const lang = wpmlLanguage(internalMeta, ctx.itemIds) ?? language;
  // The translations of one post are one entry: they share the external id of the group's first post (Polylang) or the
  // group (WPML); each translation's own id stays an alias of it, so a reference to it (a translated post's parent or
  // featured image) names that entry.
  const externalId = lang?.group ?? ownId;

  const record: ImportedEntity = { entity, externalId, data, line: node.line };
  if (lang) {
    record.locale = lang.code;
    if (lang.source ?? lang.group === ownId) record.sourceLocale = true;
  }
  if (externalId !== ownId) record.aliases = [ownId];
  if (lang) noteItem((ctx.itemIds ??= new Map()), ownId, externalId);
  if (entity === 'attachments') {
    const alt = internalMeta._wp_attachment_image_alt;
    if (typeof alt === 'string' && alt) data.alt = alt;
    const url = textOf(node, 'wp:attachment_url');
    if (url) {
      data.url = url;
      const file = attachmentFile(url, externalId, node, ctx);
      if (file) record.file = file;
    } else ctx.warn(`attachment ${externalId}: no attachment_url, no file recorded`, node.line);
  } else {
    // A password-protected post is never public here: it is imported as a draft (passwordProtected: true says why).
    const status = data.passwordProtected === true ? 'draft' : itemStatus(ids.wpStatus);
    if (status) record.status = status;
  }

  const out: EntityOut[] = [{ entity: record, kinds: POST_KINDS }];
  children(node, 'wp:comment').forEach((comment, index) => out.push(commentRecord(comment, externalId, index + 1, ctx)));
  return out;
}

/** The item's own elements: texts (their shortcodes counted), dates, author, ids and the WordPress flags. */
function itemFields(node: WxrNode, { postType, entity, wpId, guid, wpStatus }: ItemIds, ctx: RecordContext): Record<string, unknown> {
  const data: Record<string, unknown> = {
    title: rawTextOf(node, 'title')?.trim() ?? '',
    content: rawTextOf(node, 'content:encoded') ?? '',
    excerpt: rawTextOf(node, 'excerpt:encoded') ?? '',
    slug: textOf(node, 'wp:post_name') || null,
  };
  if (entity !== 'posts' && entity !== 'pages' && entity !== 'attachments') data.postType = postType;
  countShortcodes(data.content as string, ctx.shortcodes);
  countShortcodes(data.excerpt as string, ctx.shortcodes);
  const date = wpDate(textOf(node, 'wp:post_date_gmt'), textOf(node, 'wp:post_date'), textOf(node, 'pubDate'));
  if (date) data.date = date;
  const modified = wpDate(textOf(node, 'wp:post_modified_gmt'), textOf(node, 'wp:post_modified'));
  if (modified) data.modified = modified;
  const author = textOf(node, 'dc:creator');
  if (author) {
    data.author = author;
    ctx.referenced?.note('authors', author, author, node.line);
  }
  if (int(wpId) !== undefined) data.wpId = int(wpId);
  if (wpStatus) data.postStatus = wpStatus;
  data.parent = ref(textOf(node, 'wp:post_parent'));
  const menuOrder = int(textOf(node, 'wp:menu_order'));
  if (menuOrder !== undefined) data.menuOrder = menuOrder;
  const commentStatus = textOf(node, 'wp:comment_status');
  if (commentStatus) data.commentStatus = commentStatus;
  const pingStatus = textOf(node, 'wp:ping_status');
  if (pingStatus) data.pingStatus = pingStatus;
  const link = textOf(node, 'link');
  if (link) data.link = link;
  if (guid) data.guid = guid;
  if (textOf(node, 'wp:is_sticky') === '1') data.sticky = true;
  // The post password itself is a credential: only the fact is kept.
  if (textOf(node, 'wp:post_password')) data.passwordProtected = true;
  return data;
}

/** The item's `<category>` elements: categories and tags by slug, other taxonomies' terms with their name. */
function itemTaxonomies(node: WxrNode, ctx: RecordContext): Record<string, unknown> {
  const categories: string[] = [];
  const tags: string[] = [];
  const terms: Array<{ taxonomy: string; slug: string; name: string }> = [];
  for (const cat of children(node, 'category')) {
    const name = cat.text.trim();
    const slug = (cat.attrs.nicename ?? '').trim() || name;
    if (!slug) continue;
    const domain = (cat.attrs.domain ?? 'category').trim();
    if (POLYLANG_TAXONOMIES.has(domain)) continue;
    if (domain === 'category') {
      categories.push(slug);
      ctx.referenced?.note('categories', slug, name, node.line);
    } else if (domain === 'post_tag' || domain === 'tag') {
      tags.push(slug);
      ctx.referenced?.note('tags', slug, name, node.line);
    } else terms.push({ taxonomy: domain, slug, name });
  }
  return { categories: [...new Set(categories)], tags: [...new Set(tags)], ...(terms.length ? { terms } : {}) };
}

/**
 * The item's postmeta into `data`: custom fields in `meta` (recorded in ctx, ACF ones too), internal keys
 * in `internalMeta`, the featured image and page template read from them. Returns the internal meta.
 */
function itemMeta(node: WxrNode, data: Record<string, unknown>, ctx: RecordContext): Record<string, PhpValue> {
  const custom: Array<[string, PhpValue]> = [];
  const internal: Array<[string, PhpValue]> = [];
  for (const [key, value] of readMeta(children(node, 'wp:postmeta'), ctx.metaDepth)) {
    if (isInternalMetaKey(key)) internal.push([key, value]);
    else {
      custom.push([key, value]);
      ctx.customFields.add(key);
    }
  }
  const internalMeta = asObject(internal);
  for (const [key] of custom) {
    const reference = internalMeta[`_${key}`];
    if (typeof reference === 'string' && ACF_FIELD_KEY.test(reference.trim())) ctx.acfFields.add(key);
  }
  const thumbnail = internalMeta._thumbnail_id;
  if (typeof thumbnail === 'string' && ref(thumbnail.trim())) data.featuredImage = thumbnail.trim();
  const template = internalMeta._wp_page_template;
  if (typeof template === 'string' && template && template !== 'default') data.template = template;
  if (custom.length) data.meta = asObject(custom);
  if (internal.length) data.internalMeta = internalMeta;
  return internalMeta;
}

/** `wp:comment` inside an item -> comments (the author's IP address is not imported). */
function commentRecord(node: WxrNode, postId: string, ordinal: number, ctx: RecordContext): EntityOut {
  const id = textOf(node, 'wp:comment_id');
  const approved = textOf(node, 'wp:comment_approved');
  const data: Record<string, unknown> = {
    post: postId,
    author: rawTextOf(node, 'wp:comment_author')?.trim() ?? '',
    authorEmail: textOf(node, 'wp:comment_author_email') || null,
    authorUrl: textOf(node, 'wp:comment_author_url') || null,
    content: rawTextOf(node, 'wp:comment_content') ?? '',
    approved: approved || '0',
    type: textOf(node, 'wp:comment_type') || 'comment',
    parent: ref(textOf(node, 'wp:comment_parent')),
  };
  const date = wpDate(textOf(node, 'wp:comment_date_gmt'), textOf(node, 'wp:comment_date'));
  if (date) data.date = date;
  const userId = int(textOf(node, 'wp:comment_user_id'));
  if (userId) data.userId = userId;
  if (int(id) !== undefined) data.wpId = int(id);
  const meta = readMeta(children(node, 'wp:commentmeta'), ctx.metaDepth);
  if (meta.length) data.meta = asObject(meta);
  const entity: ImportedEntity = {
    entity: 'comments',
    externalId: id || `${postId}-comment-${ordinal}`,
    data,
    status: approved === '1' ? 'published' : 'draft',
    line: node.line,
  };
  return { entity, kinds: COMMENT_KINDS };
}
