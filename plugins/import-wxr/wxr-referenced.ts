/**
 * Terms and authors an export's items name without declaring them: an item's `<category domain="category|post_tag"
 * nicename="...">Name</category>` whose slug no `<wp:category>`/`<wp:tag>`/`<wp:term>` declares, a `dc:creator`
 * login no `<wp:author>` declares (WXR 1.0 has none). They become records of their own after the whole file was
 * read, so a post's categories, tags and author relations name every value the item holds.
 * Worker-side, no kernel imports.
 */
import type { EntityOut } from './wxr-records.js';

/** Most distinct undeclared references remembered (each becomes one record). */
const MAX_REFERENCED = 10_000;

/** References seen in items: `categories`/`tags` slug -> name, `authors` login -> login (first one wins). */
export class ReferencedTerms {
  private readonly seen = new Map<string, Map<string, { name: string; line?: number }>>();
  private size = 0;

  note(entity: 'categories' | 'tags' | 'authors', key: string, name: string, line?: number): void {
    const map = this.seen.get(entity) ?? this.seen.set(entity, new Map()).get(entity)!;
    if (map.has(key) || this.size >= MAX_REFERENCED) return;
    map.set(key, { name, ...(line ? { line } : {}) });
    this.size++;
  }

  /** The records of the references no declared record has (`declared`: entity -> external ids written). */
  missing(declared: Map<string, Set<string>>): EntityOut[] {
    const out: EntityOut[] = [];
    for (const [entity, refs] of this.seen)
      for (const [key, { name, line }] of refs) {
        if (declared.get(entity)?.has(key)) continue;
        const data: Record<string, unknown> =
          entity === 'authors'
            ? { login: key, email: null, displayName: key, firstName: null, lastName: null }
            : { name: name || key, slug: key, ...(entity === 'categories' ? { parent: null } : {}), description: '' };
        out.push({
          entity: { entity, externalId: key, data, ...(line ? { line } : {}) },
          ...(entity === 'categories' ? { kinds: { parent: 'relation' as const } } : {}),
        });
      }
    return out;
  }
}
