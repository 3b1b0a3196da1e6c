/**
 * The references of a WordPress export the run makes relations (ImportParseSummary.links). Posts and pages have
 * fixed ones (WXR_LINKS). Attachments and custom post types (`nav_menu_items`, `customcpts`...) get theirs from
 * what the file holds: author -> authors, categories and tags -> many-relations, like posts; `wp:post_parent` ->
 * the one item entity that holds every parent they name (an attachment's parent post, a menu item's page). When
 * the parents are items of several entities (attachments of posts and of pages) or some parent is not in the
 * file, no single relation can hold them: `parent` keeps the WordPress id (with a warning for several entities).
 * Worker-side, no kernel imports.
 */
import type { ImportParseSummary } from '../importers/public.js';

type Links = NonNullable<ImportParseSummary['links']>;

/**
 * Fixed links: a post's or page's featured image (`_thumbnail_id`, kept in featuredImage) to the attachment's
 * media (featuredMedia), a comment's parent (wp:comment_parent, kept in parent) to the parent comment's new entry
 * id (parentEntry); a post's categories and tags (slugs, in the item's order) become many-relations to the
 * categories and tags, a post's or page's author (dc:creator, the login) a relation to the authors, and a page's
 * parent (wp:post_parent) a relation to its parent page.
 */
export const WXR_LINKS: Links = [
  { entity: 'posts', field: 'categories', to: 'categories', as: 'relation', into: 'categories', many: true },
  { entity: 'posts', field: 'tags', to: 'tags', as: 'relation', into: 'tags', many: true },
  { entity: 'posts', field: 'author', to: 'authors', as: 'relation', into: 'author' },
  { entity: 'pages', field: 'author', to: 'authors', as: 'relation', into: 'author' },
  { entity: 'pages', field: 'parent', to: 'pages', as: 'relation', into: 'parent' },
  { entity: 'posts', field: 'featuredImage', to: 'attachments', as: 'media', into: 'featuredMedia' },
  { entity: 'pages', field: 'featuredImage', to: 'attachments', as: 'media', into: 'featuredMedia' },
  { entity: 'comments', field: 'parent', to: 'comments', as: 'entry', into: 'parentEntry' },
];

/** Entities that are not items (post types). */
const NOT_ITEMS = new Set(['authors', 'categories', 'tags', 'terms', 'comments']);
/** Entities whose links are all fixed. */
const FIXED = new Set(['posts', 'pages']);
/** Most distinct parent ids remembered (over all entities); an entity past it gets no parent relation. */
const MAX_PARENTS = 100_000;

/** The parents (`wp:post_parent`) the items of each entity name. */
export class ItemParents {
  private readonly parents = new Map<string, Set<string>>();
  private readonly overflow = new Set<string>();
  private size = 0;

  note(entity: string, parent: unknown): void {
    if (typeof parent !== 'string' || !parent || FIXED.has(entity) || this.overflow.has(entity)) return;
    const set = this.parents.get(entity) ?? this.parents.set(entity, new Set()).get(entity)!;
    if (set.has(parent)) return;
    if (this.size >= MAX_PARENTS) {
      this.overflow.add(entity);
      this.parents.delete(entity);
      return;
    }
    set.add(parent);
    this.size++;
  }

  /**
   * The links of the file: the fixed ones, plus per other item entity its author, categories and tags, and its
   * parent when every parent is an item of one entity (`ids`: entity -> external ids written).
   */
  links(ids: Map<string, Set<string>>, warn: (message: string) => void): Links {
    const out: Links = [...WXR_LINKS];
    const items = [...ids.keys()].filter((e) => !NOT_ITEMS.has(e));
    for (const entity of items) {
      if (FIXED.has(entity)) continue;
      out.push(
        { entity, field: 'author', to: 'authors', as: 'relation', into: 'author' },
        { entity, field: 'categories', to: 'categories', as: 'relation', into: 'categories', many: true },
        { entity, field: 'tags', to: 'tags', as: 'relation', into: 'tags', many: true },
      );
      const parents = this.parents.get(entity);
      if (this.overflow.has(entity)) warn(`${entity}: more than ${MAX_PARENTS} parents; parent keeps the WordPress ids`);
      if (!parents?.size) continue;
      const holders = new Map<string, number>();
      let missing = 0;
      for (const p of parents) {
        const holder = items.find((e) => ids.get(e)!.has(p));
        if (holder) holders.set(holder, (holders.get(holder) ?? 0) + 1);
        else missing++;
      }
      if (holders.size === 1 && !missing) {
        out.push({ entity, field: 'parent', to: [...holders.keys()][0]!, as: 'relation', into: 'parent' });
        continue;
      }
      // A parent not in the file (an export of attachments only) is no fault of the file: the id stays, silently.
      if (missing) continue;
      const kinds = [...holders].map(([e, n]) => `${n} ${e}`).join(', ');
      warn(
        `${entity}: their parents are items of several kinds (${kinds}); a relation has one target collection, so parent keeps the WordPress ids`,
      );
    }
    return out;
  }
}
