/**
 * WordPress multilingual plugins in a WXR export (issue 36): Polylang's language and translation-group taxonomies,
 * WPML's language postmeta. Worker-side, no kernel imports.
 */
import type { PhpValue } from './php-unserialize.js';
import { children, type WxrNode } from './wxr-node.js';
import { metaValue, type RecordContext } from './wxr-records.js';

/** Polylang's own taxonomies: languages and translation groups are bookkeeping, read as the items' languages. */
export const POLYLANG_TAXONOMIES = new Set(['language', 'post_translations', 'term_translations', 'term_language']);
/** WPML's language postmeta (WPML Export and Import, its XML-RPC fields, its own): language, translation group, source language. */
const WPML_LANGUAGE = ['_wpml_import_language_code', '_wpml_language', '_icl_lang_code'];
const WPML_GROUP = ['_wpml_import_translation_group', '_wpml_trid', '_icl_trid'];
const WPML_SOURCE = ['_wpml_import_source_language_code', '_icl_source_lang_code'];

/** Most translation groups of terms remembered (Polylang's `term_translations`); past it, further terms have no language. */
const MAX_TERM_GROUPS = 100_000;

/**
 * A `wp:term` of one of Polylang's taxonomies: a translation group is remembered (post_translations: posts, pages and
 * media; term_translations: categories, tags and other terms), nothing is written.
 */
export function polylangTerm(taxonomy: string, slug: string, description: string, ctx: RecordContext): 'consumed' {
  if (taxonomy !== 'post_translations' && taxonomy !== 'term_translations') return 'consumed';
  // `a:2:{s:2:"en";i:10;s:2:"de";i:12;}`: language -> post (or term) id.
  const group = metaValue(description, 2);
  if (!group || typeof group !== 'object' || Array.isArray(group)) return 'consumed';
  const members = Object.entries(group).flatMap(([lang, id]) =>
    typeof id === 'number' || typeof id === 'string' ? [[lang, String(id)]] : [],
  ) as Array<[string, string]>;
  if (taxonomy === 'post_translations') (ctx.translationGroups ??= new Map()).set(slug, members);
  else {
    const terms = (ctx.termGroups ??= new Map());
    // Term id -> its language and the group's members (the first one names the group, as for posts).
    if (terms.size < MAX_TERM_GROUPS) for (const [lang, id] of members) terms.set(id, { lang, members });
  }
  return 'consumed';
}

/** What a term's language makes of it: its locale, the group's external id and its own id as an alias. */
export interface TermLanguage {
  code: string;
  group?: string;
  source?: boolean;
}

/**
 * A term's language: WPML's termmeta (the same keys as its postmeta), else Polylang's term_translations group (`ids`:
 * term id -> external id of the terms read so far; the group is named by its first member's external id).
 */
export function termLanguage(
  wpId: string,
  meta: Record<string, PhpValue>,
  ids: Map<string, string>,
  ctx: RecordContext,
): TermLanguage | null {
  const wpml = wpmlLanguage(meta);
  if (wpml) return wpml;
  const member = ctx.termGroups?.get(wpId);
  if (!member) return null;
  const first = member.members[0]![1];
  const group = ids.get(first);
  return { code: member.lang, ...(group ? { group } : {}), source: first === wpId };
}

/** Polylang: the item's `<category domain="language">` and its translation group's first post id (when the group is declared). */
export function itemLanguage(node: WxrNode, ctx: RecordContext): { code: string; group?: string; source?: boolean } | null {
  let code = '';
  let group: string | undefined;
  for (const cat of children(node, 'category')) {
    const domain = (cat.attrs.domain ?? '').trim();
    const slug = (cat.attrs.nicename ?? '').trim() || cat.text.trim();
    if (domain === 'language') code = slug;
    else if (domain === 'post_translations') {
      const members = ctx.translationGroups?.get(slug);
      group = members?.length ? members[0]![1] : `pll:${slug}`;
    }
  }
  return code ? { code, ...(group ? { group } : {}) } : null;
}

/** Most item ids remembered for WPML duplicates (their original's external id). */
const MAX_ITEM_GROUPS = 100_000;

/**
 * WPML: the language, translation group and source language postmeta (see WPML_*). A duplicate without a group
 * (`_icl_lang_duplicate_of`: the original post's id) joins its original's group (`items`: post id -> external id of
 * the items read so far; an original not read yet is named by its own id).
 */
export function wpmlLanguage(
  meta: Record<string, PhpValue>,
  items?: Map<string, string>,
): { code: string; group?: string; source?: boolean } | null {
  const pick = (keys: string[]) => keys.map((k) => meta[k]).find((v) => (typeof v === 'string' && v.trim()) || typeof v === 'number');
  const code = pick(WPML_LANGUAGE);
  if (code === undefined) return null;
  const group = pick(WPML_GROUP);
  const source = pick(WPML_SOURCE);
  const original = pick(['_icl_lang_duplicate_of']);
  if (group === undefined && original !== undefined) {
    const id = String(original).trim();
    return { code: String(code).trim(), group: items?.get(id) ?? id, source: false };
  }
  return {
    code: String(code).trim(),
    ...(group !== undefined ? { group: `wpml:${String(group).trim()}` } : {}),
    source: source === undefined,
  };
}

/** Remembers an item's external id under its post id (for WPML duplicates), up to MAX_ITEM_GROUPS. */
export function noteItem(items: Map<string, string>, ownId: string, externalId: string): void {
  if (items.size < MAX_ITEM_GROUPS) items.set(ownId, externalId);
}
