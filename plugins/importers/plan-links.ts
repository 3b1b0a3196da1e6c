/**
 * The links of a plan (planner.ts): each reference the source declares (a featured image, a comment's parent)
 * between two entities the plan imports becomes a planned link into a field of the referring target, added to a
 * scaffolded collection, or found in an existing one. A reference no field can take is left out.
 */
import type { ImportParseSummary } from './format-contract.js';
import { DEFAULT_WIDGETS } from './field-names.js';
import type { PlanDraft } from './plan-kinds.js';
import type { Operation, PlannedLink } from './planner.js';
import type { CollectionInfo } from '../content/public.js';

const MEDIA_FIELD_NAMES = ['featuredMedia', 'featuredImage', 'image', 'cover', 'thumbnail'];

type SourceLink = NonNullable<ImportParseSummary['links']>[number];

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
    const into = linkField(draft, l, from, collections);
    if (!into) continue;
    links.push({
      entity: l.entity,
      collection: from.targetCollection,
      field: l.field,
      to: l.to,
      toCollection: to.targetCollection,
      as: l.as,
      into,
      ...(toMediaField ? { toMediaField } : {}),
    });
  }
  return links;
}
