/**
 * The references of a CMS export that become relations (ImportParseSummary.links): a field whose targets are all
 * records of one entity the parser writes (Drupal `field_tags` -> tags, a Strapi relation -> its content type)
 * becomes a relation to that entity's collection, many when the source holds a list. The spool writer keeps only
 * those whose target entity has records, so a reference to something not in the import stays as it was.
 * Worker-side, no kernel imports.
 */
import type { ImportParseSummary } from '../importers/public.js';

/** Most distinct referring fields remembered. */
const MAX_REFERENCE_FIELDS = 2000;

export class ReferenceLinks {
  private readonly fields = new Map<string, { entity: string; field: string; targets: Set<string>; many: boolean }>();

  /** A record of `entity` refers in `field` to records of `targets` (entity names; null for one that is no record). */
  note(entity: string, field: string, many: boolean, targets: Array<string | null>): void {
    const key = `${entity}\n${field}`;
    let ref = this.fields.get(key);
    if (!ref) {
      if (this.fields.size >= MAX_REFERENCE_FIELDS) return;
      this.fields.set(key, (ref = { entity, field, targets: new Set(), many }));
    }
    if (many) ref.many = true;
    for (const t of targets) ref.targets.add(t ?? '\u0000');
  }

  /** The links: the fields whose targets are all of one entity (into the field itself). */
  links(): NonNullable<ImportParseSummary['links']> {
    const out: NonNullable<ImportParseSummary['links']> = [];
    for (const { entity, field, targets, many } of this.fields.values()) {
      const [to] = [...targets];
      if (targets.size !== 1 || !to || to === '\u0000') continue;
      out.push({ entity, field, to, as: 'relation', into: field, ...(many ? { many: true } : {}) });
    }
    return out;
  }
}
