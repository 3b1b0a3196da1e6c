/**
 * The three kinds of operation the plan (planner.ts) makes of a mapped entity, each with its field mappings:
 * create into an existing collection (fields mapped explicitly or automatically; a required field nothing fills
 * blocks the plan), scaffold a new collection (one field per source field), or skip with a note when a new
 * collection is needed and scaffold is off.
 */
import type { ImportFieldKind } from './format-contract.js';
import { DEFAULT_WIDGETS, FIELD_TYPE_OF_KIND, SOURCE_FIELD, uniqueFieldNames } from './field-names.js';
import { autoMap } from './plan-targets.js';
import type { FieldMapping, Operation, SafetyMode, ScaffoldCollection, StatusPolicy } from './planner.js';
import type { CollectionInfo } from '../content/public.js';

/** The plan being built, entity by entity. */
export interface PlanDraft {
  fieldMappings: FieldMapping[];
  operations: Operation[];
  /** The collections to scaffold, by name (entities may share one). */
  scaffolds: Map<string, ScaffoldCollection>;
  blockedReasons: string[];
}

/** One source entity, its mapping and the target collection chosen for it. */
export interface EntityTarget {
  entity: string;
  count: number;
  kinds: Record<string, ImportFieldKind>;
  /** The entity's source fields. */
  sources: string[];
  /** Per source field: the target field the mapping names, or null to leave it out. */
  fields: Record<string, string | null>;
  /** The target collection's name. */
  name: string;
  statuses: StatusPolicy;
}

/** How the messages of an existing target speak of the import. */
export interface PlanWording {
  format: string;
  mode: SafetyMode;
  /** Words for the source's records (`Strapi export (JSON)`). */
  label: string;
  /** Records of earlier imports of this format known in the target. */
  linked: number;
}

/** The field mappings onto an existing collection: explicit, else automatic; an attachment's file into its media field. */
function mapOntoExisting(draft: PlanDraft, t: EntityTarget, existing: CollectionInfo): void {
  const { entity } = t;
  const taken = new Set<string>();
  for (const source of t.sources) {
    const explicit = t.fields[source];
    let field = explicit === null ? undefined : explicit !== undefined ? existing.fields.find((f) => f.name === explicit) : undefined;
    let confidence = explicit !== undefined && field ? 1 : 0;
    if (explicit === undefined) {
      const found = autoMap(source, existing.fields, taken);
      field = found?.field;
      confidence = found?.confidence ?? 0;
    }
    if (field) taken.add(field.name);
    draft.fieldMappings.push({ entity, sourceField: source, targetField: field?.name ?? null, confidence, type: field?.type ?? null });
  }
  const media = existing.fields.find((f) => f.type === 'media' && (f.name === t.fields.file || ['media', 'file'].includes(f.name)));
  if (media && !taken.has(media.name))
    draft.fieldMappings.push({ entity, sourceField: 'file', targetField: media.name, confidence: 0.9, type: 'media' });
}

/** Create into an existing collection: the fields it leaves empty, and a blocked reason per required one of them. */
export function planIntoExisting(draft: PlanDraft, t: EntityTarget, existing: CollectionInfo, words: PlanWording): void {
  const { entity, name } = t;
  mapOntoExisting(draft, t, existing);
  const note = words.linked
    ? `${words.linked} record(s) of earlier ${words.format} imports into '${name}' are known; those in this file are matched by external id and ${words.mode === 'merge' ? 'updated when changed' : 'skipped (mode add; merge updates them)'}`
    : undefined;
  const filled = new Set(draft.fieldMappings.filter((m) => m.entity === entity && m.targetField).map((m) => m.targetField!));
  const empty = existing.fields.filter((f) => f.name !== SOURCE_FIELD && !filled.has(f.name));
  const requiredMissing = empty.filter((f) => f.required).map((f) => f.name);
  const unmappedFields = draft.fieldMappings
    .filter((m) => m.entity === entity && !m.targetField && m.sourceField !== 'file')
    .map((m) => m.sourceField);
  for (const field of requiredMissing)
    draft.blockedReasons.push(
      `The collection '${name}' requires the field '${field}', which the ${entity} of this ${words.label} file do not have. ` +
        `Import the ${entity} into a new collection instead, or choose a source field for '${field}'.`,
    );
  draft.operations.push({
    action: 'create',
    sourceType: entity,
    targetCollection: name,
    count: t.count,
    ...(note ? { note } : {}),
    target: 'existing',
    statuses: t.statuses,
    emptyFields: empty.map((f) => f.name),
    requiredMissing,
    unmappedFields,
  });
}

/** Scaffold a new collection (or add to one another entity scaffolds): a field of the inferred type per source field. */
export function planScaffold(draft: PlanDraft, t: EntityTarget): void {
  const { entity, name } = t;
  const target = draft.scaffolds.get(name) ?? { name, fields: [], widgets: {} };
  const names = uniqueFieldNames(
    t.sources.filter((s) => t.fields[s] !== null),
    [SOURCE_FIELD, ...target.fields.map((f) => f.name)],
  );
  for (const source of t.sources) {
    const fieldName = t.fields[source] === null ? null : (t.fields[source] ?? names.get(source)!);
    const type = FIELD_TYPE_OF_KIND[t.kinds[source]!];
    if (fieldName && !target.fields.some((f) => f.name === fieldName) && target.fields.length < 196) {
      target.fields.push({ name: fieldName, type, label: source.slice(0, 191) || fieldName });
      target.widgets[fieldName] = DEFAULT_WIDGETS[type];
    }
    draft.fieldMappings.push({
      entity,
      sourceField: source,
      targetField: fieldName,
      confidence: fieldName ? 1 : 0,
      type: fieldName ? type : null,
    });
  }
  if (entity === 'attachments' && !target.fields.some((f) => f.name === 'media')) {
    target.fields.push({ name: 'media', type: 'media', label: 'Media' });
    target.widgets.media = DEFAULT_WIDGETS.media;
    draft.fieldMappings.push({ entity, sourceField: 'file', targetField: 'media', confidence: 1, type: 'media' });
  }
  draft.scaffolds.set(name, target);
  draft.operations.push({
    action: 'scaffold',
    sourceType: entity,
    targetCollection: name,
    count: t.count,
    note: `collection '${name}' is created with ${target.fields.length} field(s) and ${SOURCE_FIELD}`,
    target: 'new',
    statuses: t.statuses,
    unmappedFields: draft.fieldMappings.filter((m) => m.entity === entity && !m.targetField).map((m) => m.sourceField),
  });
}

/** Skipped: the entity needs a new collection and scaffold is off (its fields stay unmapped). */
export function planNeedsCollection(draft: PlanDraft, t: EntityTarget): void {
  const { entity, name } = t;
  for (const source of t.sources)
    draft.fieldMappings.push({ entity, sourceField: source, targetField: null, confidence: 0, type: FIELD_TYPE_OF_KIND[t.kinds[source]!] });
  draft.operations.push({
    action: 'skip',
    sourceType: entity,
    targetCollection: null,
    count: t.count,
    note: `The ${entity} need a new collection '${name}': allow the import to create new collections, or choose one of your collections for them`,
    target: 'new',
    statuses: t.statuses,
  });
}
