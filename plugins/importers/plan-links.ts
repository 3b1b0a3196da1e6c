/**
 * The links of a plan (planner.ts): each reference the source declares (a featured image, a comment's parent, a
 * post's categories, tags and author) between two entities the plan imports becomes a planned link into a field
 * of the referring target, added to a scaffolded collection, or found in an existing one. A reference no field can
 * take is left out (the source field is then imported as it is today: its value as text).
 */
import type { ImportParseSummary } from './format-contract.js';
import { DEFAULT_WIDGETS } from './field-names.js';
import type { PlanDraft } from './plan-kinds.js';
import type { Operation, PlannedLink } from './planner.js';
import type { CollectionInfo } from '../content/public.js';
import type { EarlierLink } from './earlier-links.js';

const MEDIA_FIELD_NAMES = ['featuredMedia', 'featuredImage', 'image', 'cover', 'thumbnail'];

type SourceLink = NonNullable<ImportParseSummary['links']>[number];

/**
 * A relation link's field: in a scaffolded collection the source field's own field (or a new one) becomes a
 * relation to the target's collection; in an existing collection, a relation field of that name, target and
 * cardinality. The source field's mapping then shows the relation (it is filled after the records are written).
 */
function relationField(draft: PlanDraft, source: SourceLink, from: Operation, toCollection: string, collections: CollectionInfo[]) {
  const cardinality = source.many ? ('many' as const) : ('one' as const);
  // Into the source field's own field: the field the plan maps it to (`field_tags` -> `fieldTags`); none when left out.
  const own = draft.fieldMappings.find((m) => m.entity === source.entity && m.sourceField === source.field);
  const into = source.into === source.field ? own?.targetField : source.into;
  if (!into) return undefined;
  const l = { ...source, into };
  const scaffolded = from.action === 'scaffold' ? draft.scaffolds.get(from.targetCollection!) : undefined;
  if (scaffolded) {
    const field = scaffolded.fields.find((f) => f.name === l.into);
    if (field && field.type !== 'text' && !(field.type === 'relation' && field.collection === toCollection)) return undefined;
    if (!field && scaffolded.fields.length >= 196) return undefined;
    const relation = { name: l.into, type: 'relation' as const, label: field?.label ?? l.into, collection: toCollection, cardinality };
    if (field) Object.assign(field, relation);
    else scaffolded.fields.push(relation);
    scaffolded.widgets[l.into] = DEFAULT_WIDGETS.relation;
  } else {
    const existing = collections.find((c) => c.name === from.targetCollection);
    const field = existing?.fields.find((f) => f.name === l.into);
    if (field?.type !== 'relation' || field.collection !== toCollection || (field.cardinality ?? 'one') !== cardinality) return undefined;
  }
  for (const m of draft.fieldMappings)
    if (m.entity === l.entity && m.targetField === l.into) Object.assign(m, { type: 'relation', collection: toCollection, cardinality });
  return l.into;
}

/** The target field a link's resolved id goes into, or undefined when there is none. */
function linkField(draft: PlanDraft, l: SourceLink, from: Operation, collections: CollectionInfo[]): string | undefined {
  const wanted = l.as === 'media' ? 'media' : 'text';
  const scaffolded = from.action === 'scaffold' ? draft.scaffolds.get(from.targetCollection!) : undefined;
  if (scaffolded) {
    const field = scaffolded.fields.find((f) => f.name === l.into);
    if (!field && scaffolded.fields.length < 196) {
      scaffolded.fields.push({ name: l.into, type: wanted, label: l.into });
      scaffolded.widgets[l.into] = DEFAULT_WIDGETS[wanted];
      return l.into;
    }
    return field?.type === wanted ? l.into : undefined;
  }
  const existing = collections.find((c) => c.name === from.targetCollection);
  const used = new Set(draft.fieldMappings.filter((m) => m.entity === l.entity && m.targetField).map((m) => m.targetField));
  const names = l.as === 'media' ? [l.into, ...MEDIA_FIELD_NAMES] : [l.into];
  return names.find((n) => existing?.fields.some((f) => f.name === n && f.type === wanted) && !used.has(n));
}

/** The planned links (a scaffolded collection gains the fields they go into). */
export function planLinks(draft: PlanDraft, sourceLinks: SourceLink[], collections: CollectionInfo[]): PlannedLink[] {
  const links: PlannedLink[] = [];
  for (const l of sourceLinks) {
    const from = draft.operations.find((o) => o.sourceType === l.entity && o.action !== 'skip');
    const to = draft.operations.find((o) => o.sourceType === l.to && o.action !== 'skip');
    if (!from?.targetCollection || !to?.targetCollection) continue;
    const toMediaField =
      l.as === 'media'
        ? draft.fieldMappings.find((m) => m.entity === l.to && m.sourceField === 'file' && m.type === 'media')?.targetField
        : undefined;
    if (l.as === 'media' && !toMediaField) continue;
    const into =
      l.as === 'relation' ? relationField(draft, l, from, to.targetCollection, collections) : linkField(draft, l, from, collections);
    if (!into) continue;
    links.push({
      entity: l.entity,
      collection: from.targetCollection,
      field: l.field,
      to: l.to,
      toCollection: to.targetCollection,
      as: l.as,
      into,
      ...(l.as === 'relation' && l.many ? { many: true } : {}),
      ...(toMediaField ? { toMediaField } : {}),
    });
  }
  return links;
}

/**
 * Relations to records earlier imports wrote (earlier-links.ts): only for an entity this plan imports, to an entity
 * it does not (its own links decide those), into the source field's own field.
 */
export function planEarlierLinks(draft: PlanDraft, earlier: EarlierLink[], collections: CollectionInfo[]): PlannedLink[] {
  const links: PlannedLink[] = [];
  for (const l of earlier) {
    const from = draft.operations.find((o) => o.sourceType === l.entity && o.action !== 'skip');
    if (!from?.targetCollection || draft.operations.some((o) => o.sourceType === l.to)) continue;
    const source: SourceLink = {
      entity: l.entity,
      field: l.field,
      to: l.to,
      as: 'relation',
      into: l.field,
      ...(l.many ? { many: true } : {}),
    };
    const into = relationField(draft, source, from, l.toCollection, collections);
    if (!into) continue;
    links.push({
      entity: l.entity,
      collection: from.targetCollection,
      field: l.field,
      to: l.to,
      toCollection: l.toCollection,
      as: 'relation',
      into,
      ...(l.many ? { many: true } : {}),
    });
  }
  return links;
}
