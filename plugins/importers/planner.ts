import { ValidationError } from '../../kernel/sdk.js';
import type { ImportFieldKind, ImportParseSummary } from './format-contract.js';
import { collectionNameFor, DEFAULT_WIDGETS, isCollectionName, SOURCE_FIELD, type ContentFieldType } from './field-names.js';
import { planIntoExisting, planNeedsCollection, planScaffold, type EntityTarget, type PlanDraft } from './plan-kinds.js';
import { planEarlierLinks, planLinks } from './plan-links.js';
import type { EarlierLink } from './earlier-links.js';
import { defaultTarget, madeByImport } from './plan-targets.js';
import type { CollectionInfo } from '../content/public.js';
import type { z } from 'zod';
import type { importOperationSchema } from './routes.js';
import type { PlannedLocale } from './plan-locales.js';

export { autoMap, defaultTarget } from './plan-targets.js';

export type SafetyMode = 'add' | 'merge';
/** What a run does with the source's publication states: keep them, or import every record as a draft. */
export type StatusPolicy = 'keep' | 'draft';

/**
 * `mappings[entity]`: a collection name, false/null to leave the entity out, or a collection plus per-field
 * targets and the entity's status policy.
 */
export type EntityMapping =
  string | null | false | { collection?: string; fields?: Record<string, string | null>; statuses?: StatusPolicy };

export interface FieldMapping {
  entity: string;
  sourceField: string;
  targetField: string | null;
  confidence: number;
  type: ContentFieldType | null;
  /** A relation (set after the records are written, see links): its target collection and cardinality. */
  collection?: string;
  cardinality?: 'one' | 'many';
}
/** One step of an import plan: the plan route's schema (routes.ts importOperationSchema) is the one definition. */
export type Operation = z.output<typeof importOperationSchema>;
/** A scaffolded field: a relation names its target collection and cardinality. */
export interface ScaffoldField {
  name: string;
  type: ContentFieldType;
  label: string;
  collection?: string;
  cardinality?: 'one' | 'many';
}
export interface ScaffoldCollection {
  name: string;
  fields: ScaffoldField[];
  widgets: Record<string, string>;
}
export interface ImportPlan {
  planId: string;
  uploadId: string;
  format: string;
  scaffold: boolean;
  mode: SafetyMode;
  fieldMappings: FieldMapping[];
  operations: Operation[];
  scaffoldCollections: ScaffoldCollection[];
  estimatedDurationMs: number;
  total: number;
  /** Reasons the plan cannot run (a required field of an existing target that no source field fills). */
  blockedReasons: string[];
  /** Shortcodes the source's content uses (WXR), name -> occurrences: imported as written, not expanded. */
  shortcodes: Array<{ name: string; count: number }>;
  /** References the run resolves into the target's ids after writing (see ImportParseSummary.links). */
  links?: PlannedLink[];
  /** The source's languages and the installation locale each goes to (plan-locales.ts); absent when the source has none. */
  locales?: PlannedLocale[];
  /** The installation's default locale when the plan was made (its records write the entries' own values). */
  defaultLocale?: string;
}
export interface PlannedLink {
  entity: string;
  collection: string;
  /** The source field holding the referenced record's external id (its value is kept as it is). */
  field: string;
  to: string;
  toCollection: string;
  as: 'entry' | 'media' | 'relation';
  /** The target field the resolved id goes into. */
  into: string;
  /** as relation: `into` is a many-relation (the source field holds a list of external ids). */
  many?: boolean;
  /** as media: the field of the `to` collection that holds the media id. */
  toMediaField?: string;
}

function entityMapping(
  mappings: Record<string, EntityMapping> | undefined,
  entity: string,
): { skip: boolean; collection?: string; fields: Record<string, string | null>; statuses?: StatusPolicy } {
  const m = mappings?.[entity];
  if (m === false || m === null) return { skip: true, fields: {} };
  if (typeof m === 'string') return { skip: false, collection: m, fields: {} };
  if (m && typeof m === 'object')
    return { skip: false, collection: m.collection, fields: m.fields ?? {}, ...(m.statuses ? { statuses: m.statuses } : {}) };
  return { skip: false, fields: {} };
}

export interface PlanInput {
  planId: string;
  uploadId: string;
  format: string;
  filename: string;
  summary: ImportParseSummary;
  collections: CollectionInfo[];
  scaffold: boolean;
  mode: SafetyMode;
  mappings?: Record<string, EntityMapping>;
  linked: Record<string, Record<string, number>>;
  /** References to records earlier imports wrote (earlier-links.ts). */
  earlierLinks?: EarlierLink[];
  /** The plan-wide status policy (an entity's mapping may override it); default per target, see buildPlan. */
  statuses?: StatusPolicy;
  /** The short source name new collections are suffixed with (`strapi`, `wordpress`). */
  sourceTag?: string;
  /** Words for the source's records in messages (`Strapi export (JSON)`). */
  sourceLabel?: string;
}

/** The target collection of an entity (a mapped name is checked), with the existing collection of that name. */
function chooseTarget(
  input: PlanInput,
  entity: string,
  collection: string | undefined,
  proposed: Set<string>,
): { name: string; existing?: CollectionInfo } {
  if (collection !== undefined && !isCollectionName(collection)) {
    const message = 'lower-case letters, digits and _, starting with a letter, at most 48 (not presets, schema or batch)';
    throw new ValidationError(`'${collection}' is not a valid collection name: ${message}`, [{ path: `body.mappings.${entity}`, message }]);
  }
  const base = entity === 'rows' ? collectionNameFor(input.filename) : collectionNameFor(entity);
  // CSV/JSON rows go to the collection named after the file (the file's name is the user's choice, API-DECISIONS);
  // a source's own entity names (articles, authors, posts) never land in an existing collection unless mapped there.
  const chosen =
    collection !== undefined || entity === 'rows'
      ? { name: collection ?? base, existing: input.collections.find((c) => c.name === (collection ?? base)) }
      : defaultTarget(base, input.sourceTag ?? 'import', input.collections, input.linked[entity], proposed);
  if (!chosen.existing) proposed.add(chosen.name);
  return chosen;
}

/**
 * Builds the plan of an upload: per source entity the target collection (mapping, else an existing
 * collection of the entity's name, for `rows` the file's base name), the field mappings (explicit,
 * else automatic by name) and the operation: create into an existing collection, scaffold a new one,
 * or skip with a note when nothing matches and scaffold is off (plan-kinds.ts); then the links (plan-links.ts).
 */
export function buildPlan(input: PlanInput): ImportPlan {
  const { summary, collections, scaffold } = input;
  const draft: PlanDraft = { fieldMappings: [], operations: [], scaffolds: new Map(), blockedReasons: [] };
  const proposed = new Set<string>();
  const label = input.sourceLabel ?? input.format;
  let total = 0;
  let attachments = 0;
  for (const [entity, count] of Object.entries(summary.counts)) {
    const kinds: Record<string, ImportFieldKind> = { ...(summary.fields[entity] ?? {}) };
    if (entity === 'attachments') kinds.url ??= 'text';
    const spec = entityMapping(input.mappings, entity);
    if (spec.skip) {
      draft.operations.push({ action: 'skip', sourceType: entity, targetCollection: null, count, note: 'left out by mappings' });
      continue;
    }
    const { name, existing } = chooseTarget(input, entity, spec.collection, proposed);
    // Keep the source's statuses into a new collection (or one an earlier import made); drafts into one of yours.
    const statuses: StatusPolicy = spec.statuses ?? input.statuses ?? (!existing || madeByImport(existing) ? 'keep' : 'draft');
    const target: EntityTarget = { entity, count, kinds, sources: Object.keys(kinds), fields: spec.fields, name, statuses };
    if (existing) {
      const linked = input.linked[entity]?.[name] ?? 0;
      planIntoExisting(draft, target, existing, { format: input.format, mode: input.mode, label, linked });
    } else if (scaffold) planScaffold(draft, target);
    else {
      planNeedsCollection(draft, target);
      continue;
    }
    total += count;
    if (entity === 'attachments') attachments += count;
  }
  const links = [...planLinks(draft, summary.links ?? [], collections), ...planEarlierLinks(draft, input.earlierLinks ?? [], collections)];
  const scaffoldCollections = [...draft.scaffolds.values()].map((s) => ({
    ...s,
    fields: [...s.fields, { name: SOURCE_FIELD, type: 'json' as const, label: 'Import source' }],
    widgets: { ...s.widgets, [SOURCE_FIELD]: DEFAULT_WIDGETS.json },
  }));
  return {
    planId: input.planId,
    uploadId: input.uploadId,
    format: input.format,
    scaffold,
    mode: input.mode,
    fieldMappings: draft.fieldMappings,
    operations: draft.operations,
    scaffoldCollections,
    estimatedDurationMs: Math.max(50, Math.round(total * 4 + attachments * 40)),
    total,
    blockedReasons: draft.blockedReasons,
    shortcodes: Object.entries(summary.shortcodes ?? {}).map(([name, count]) => ({ name, count })),
    ...(links.length ? { links } : {}),
  };
}
