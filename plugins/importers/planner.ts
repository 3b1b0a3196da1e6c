import { ValidationError } from '../../kernel/sdk.js';
import type { ImportFieldKind, ImportParseSummary } from './format-contract.js';
import {
  collectionNameFor,
  DEFAULT_WIDGETS,
  isCollectionName,
  FIELD_TYPE_OF_KIND,
  fieldNameFor,
  SOURCE_FIELD,
  uniqueFieldNames,
  type ContentFieldType,
} from './field-names.js';
import type { CollectionInfo } from './ports.js';

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
}
export interface Operation {
  action: 'create' | 'update' | 'skip' | 'scaffold';
  sourceType: string;
  targetCollection: string | null;
  count: number;
  note?: string;
  /** Whether the target is a collection this import creates (`new`) or one that exists (`existing`). */
  target?: 'new' | 'existing';
  /** The status policy the run enforces for this entity (see StatusPolicy). */
  statuses?: StatusPolicy;
  /** Existing target: its fields no source field fills (left empty), and which of them are required. */
  emptyFields?: string[];
  requiredMissing?: string[];
  /** Source fields that go nowhere (no target field). */
  unmappedFields?: string[];
}
export interface ScaffoldCollection {
  name: string;
  fields: Array<{ name: string; type: ContentFieldType; label: string }>;
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
}
export interface PlannedLink {
  entity: string;
  collection: string;
  /** The source field holding the referenced record's external id (its value is kept as it is). */
  field: string;
  to: string;
  toCollection: string;
  as: 'entry' | 'media';
  /** The target field the resolved id goes into. */
  into: string;
  /** as media: the field of the `to` collection that holds the media id. */
  toMediaField?: string;
}

const MEDIA_FIELD_NAMES = ['featuredMedia', 'featuredImage', 'image', 'cover', 'thumbnail'];

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const stripPrefix = (s: string) => norm(s).replace(/^(post|wp|field|meta|product|item)/, '');
const SYNONYMS = [
  ['title', 'name', 'posttitle', 'headline', 'subject'],
  ['content', 'body', 'postcontent', 'bodyhtml', 'html', 'text', 'description'],
  ['excerpt', 'summary', 'postexcerpt', 'teaser', 'lead'],
  ['publishedat', 'date', 'postdate', 'postdategmt', 'dategmt', 'pubdate', 'datecreated', 'created', 'publishdate'],
  ['author', 'creator', 'dccreator', 'usercreated'],
  ['image', 'featuredimage', 'thumbnail', 'cover', 'media', 'file'],
  ['url', 'link', 'attachmenturl', 'guid', 'src'],
  ['price', 'variantprice', 'regularprice'],
  ['sku', 'variantsku'],
];

/** The best existing field for a source field, with a confidence (1 same name, 0.9 same valid name, 0.75 similar, 0.6 synonym). */
export function autoMap(
  source: string,
  fields: CollectionInfo['fields'],
  taken: Set<string>,
): { field: CollectionInfo['fields'][number]; confidence: number } | null {
  const free = fields.filter((f) => !taken.has(f.name) && f.name !== SOURCE_FIELD);
  const candidates: Array<[number, (f: (typeof free)[number]) => boolean]> = [
    [1, (f) => f.name === source],
    [0.9, (f) => f.name.toLowerCase() === fieldNameFor(source).toLowerCase()],
    [0.75, (f) => stripPrefix(f.name) === stripPrefix(source) && stripPrefix(source) !== ''],
    [
      0.6,
      (f) =>
        SYNONYMS.some((group) => group.includes(norm(f.name)) && (group.includes(norm(source)) || group.includes(stripPrefix(source)))),
    ],
  ];
  for (const [confidence, test] of candidates) {
    const field = free.find(test);
    if (field) return { field, confidence };
  }
  return null;
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

/** A collection an earlier import made (it has the scaffolded `_source_import` field). */
const madeByImport = (c: CollectionInfo) => c.fields.some((f) => f.name === SOURCE_FIELD);

/**
 * The default target of an entity nobody mapped: never an existing collection the user made. The entity's
 * own name (`rows`: the file's base name) when no collection has it; else `<name>_<source>` (`articles_strapi`,
 * `posts_wordpress`), then `<name>_<source>_2`, ... An existing candidate is taken only when an earlier import
 * of the same format made it and put this entity's records in it (a re-import goes where the first one went).
 */
export function defaultTarget(
  base: string,
  sourceTag: string,
  collections: CollectionInfo[],
  linked: Record<string, number> | undefined,
  taken: Set<string>,
): { name: string; existing?: CollectionInfo } {
  const suffix = `_${sourceTag}`;
  const candidates = [base, `${base.slice(0, 48 - suffix.length)}${suffix}`];
  for (let n = 2; n <= 20; n++) candidates.push(`${base.slice(0, 48 - suffix.length - String(n).length - 1)}${suffix}_${n}`);
  for (const name of candidates) {
    const existing = collections.find((c) => c.name === name);
    if (!existing) {
      if (taken.has(name)) continue;
      return { name };
    }
    if (madeByImport(existing) && (linked?.[name] ?? 0) > 0) return { name, existing };
  }
  return { name: candidates[candidates.length - 1]! };
}

/**
 * Builds the plan of an upload: per source entity the target collection (mapping, else an existing
 * collection of the entity's name, for `rows` the file's base name), the field mappings (explicit,
 * else automatic by name) and the operation: create into an existing collection, scaffold a new one,
 * or skip with a note when nothing matches and scaffold is off.
 */
export function buildPlan(input: {
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
  /** The plan-wide status policy (an entity's mapping may override it); default per target, see below. */
  statuses?: StatusPolicy;
  /** The short source name new collections are suffixed with (`strapi`, `wordpress`). */
  sourceTag?: string;
  /** Words for the source's records in messages (`Strapi export (JSON)`). */
  sourceLabel?: string;
}): ImportPlan {
  const { summary, collections, scaffold } = input;
  const fieldMappings: FieldMapping[] = [];
  const operations: Operation[] = [];
  const scaffolds = new Map<string, ScaffoldCollection>();
  const blockedReasons: string[] = [];
  const proposed = new Set<string>();
  const label = input.sourceLabel ?? input.format;
  let total = 0;
  let attachments = 0;
  for (const [entity, count] of Object.entries(summary.counts)) {
    const kinds: Record<string, ImportFieldKind> = { ...(summary.fields[entity] ?? {}) };
    if (entity === 'attachments') kinds.url ??= 'text';
    const sources = Object.keys(kinds);
    const spec = entityMapping(input.mappings, entity);
    if (spec.skip) {
      operations.push({ action: 'skip', sourceType: entity, targetCollection: null, count, note: 'left out by mappings' });
      continue;
    }
    if (spec.collection !== undefined && !isCollectionName(spec.collection)) {
      const message = 'lower-case letters, digits and _, starting with a letter, at most 48 (not presets, schema or batch)';
      throw new ValidationError(`'${spec.collection}' is not a valid collection name: ${message}`, [
        { path: `body.mappings.${entity}`, message },
      ]);
    }
    const base = entity === 'rows' ? collectionNameFor(input.filename) : collectionNameFor(entity);
    // CSV/JSON rows go to the collection named after the file (the file's name is the user's choice, API-DECISIONS);
    // a source's own entity names (articles, authors, posts) never land in an existing collection unless mapped there.
    const chosen =
      spec.collection !== undefined || entity === 'rows'
        ? { name: spec.collection ?? base, existing: collections.find((c) => c.name === (spec.collection ?? base)) }
        : defaultTarget(base, input.sourceTag ?? 'import', collections, input.linked[entity], proposed);
    const name = chosen.name;
    if (!chosen.existing) proposed.add(name);
    const existing = chosen.existing;
    // Keep the source's statuses into a new collection (or one an earlier import made); drafts into one of yours.
    const statuses: StatusPolicy = spec.statuses ?? input.statuses ?? (!existing || madeByImport(existing) ? 'keep' : 'draft');
    if (existing) {
      const taken = new Set<string>();
      for (const source of sources) {
        const explicit = spec.fields[source];
        let field = explicit === null ? undefined : explicit !== undefined ? existing.fields.find((f) => f.name === explicit) : undefined;
        let confidence = explicit !== undefined && field ? 1 : 0;
        if (explicit === undefined) {
          const found = autoMap(source, existing.fields, taken);
          field = found?.field;
          confidence = found?.confidence ?? 0;
        }
        if (field) taken.add(field.name);
        fieldMappings.push({ entity, sourceField: source, targetField: field?.name ?? null, confidence, type: field?.type ?? null });
      }
      const media = existing.fields.find((f) => f.type === 'media' && (f.name === spec.fields.file || ['media', 'file'].includes(f.name)));
      if (media && !taken.has(media.name))
        fieldMappings.push({ entity, sourceField: 'file', targetField: media.name, confidence: 0.9, type: 'media' });
      const linked = input.linked[entity]?.[name] ?? 0;
      const note = linked
        ? `${linked} record(s) of earlier ${input.format} imports into '${name}' are known; those in this file are matched by external id and ${input.mode === 'merge' ? 'updated when changed' : 'skipped (mode add; merge updates them)'}`
        : undefined;
      const filled = new Set(fieldMappings.filter((m) => m.entity === entity && m.targetField).map((m) => m.targetField!));
      const empty = existing.fields.filter((f) => f.name !== SOURCE_FIELD && !filled.has(f.name));
      const requiredMissing = empty.filter((f) => f.required).map((f) => f.name);
      const unmappedFields = fieldMappings
        .filter((m) => m.entity === entity && !m.targetField && m.sourceField !== 'file')
        .map((m) => m.sourceField);
      for (const field of requiredMissing)
        blockedReasons.push(
          `The collection '${name}' requires the field '${field}', which the ${entity} of this ${label} file do not have. ` +
            `Import the ${entity} into a new collection instead, or choose a source field for '${field}'.`,
        );
      operations.push({
        action: 'create',
        sourceType: entity,
        targetCollection: name,
        count,
        ...(note ? { note } : {}),
        target: 'existing',
        statuses,
        emptyFields: empty.map((f) => f.name),
        requiredMissing,
        unmappedFields,
      });
    } else if (scaffold) {
      const target = scaffolds.get(name) ?? { name, fields: [], widgets: {} };
      const names = uniqueFieldNames(
        sources.filter((s) => spec.fields[s] !== null),
        [SOURCE_FIELD, ...target.fields.map((f) => f.name)],
      );
      for (const source of sources) {
        const fieldName = spec.fields[source] === null ? null : (spec.fields[source] ?? names.get(source)!);
        const type = FIELD_TYPE_OF_KIND[kinds[source]!];
        if (fieldName && !target.fields.some((f) => f.name === fieldName) && target.fields.length < 196) {
          target.fields.push({ name: fieldName, type, label: source.slice(0, 191) || fieldName });
          target.widgets[fieldName] = DEFAULT_WIDGETS[type];
        }
        fieldMappings.push({
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
        fieldMappings.push({ entity, sourceField: 'file', targetField: 'media', confidence: 1, type: 'media' });
      }
      scaffolds.set(name, target);
      operations.push({
        action: 'scaffold',
        sourceType: entity,
        targetCollection: name,
        count,
        note: `collection '${name}' is created with ${target.fields.length} field(s) and ${SOURCE_FIELD}`,
        target: 'new',
        statuses,
        unmappedFields: fieldMappings.filter((m) => m.entity === entity && !m.targetField).map((m) => m.sourceField),
      });
    } else {
      for (const source of sources)
        fieldMappings.push({ entity, sourceField: source, targetField: null, confidence: 0, type: FIELD_TYPE_OF_KIND[kinds[source]!] });
      operations.push({
        action: 'skip',
        sourceType: entity,
        targetCollection: null,
        count,
        note: `The ${entity} need a new collection '${name}': allow the import to create new collections, or choose one of your collections for them`,
        target: 'new',
        statuses,
      });
      continue;
    }
    total += count;
    if (entity === 'attachments') attachments += count;
  }
  const links: PlannedLink[] = [];
  for (const l of summary.links ?? []) {
    const from = operations.find((o) => o.sourceType === l.entity && o.action !== 'skip');
    const to = operations.find((o) => o.sourceType === l.to && o.action !== 'skip');
    if (!from?.targetCollection || !to?.targetCollection) continue;
    const toMediaField =
      l.as === 'media'
        ? fieldMappings.find((m) => m.entity === l.to && m.sourceField === 'file' && m.type === 'media')?.targetField
        : undefined;
    if (l.as === 'media' && !toMediaField) continue;
    const wanted = l.as === 'media' ? 'media' : 'text';
    let into: string | undefined;
    const scaffolded = from.action === 'scaffold' ? scaffolds.get(from.targetCollection) : undefined;
    if (scaffolded) {
      const field = scaffolded.fields.find((f) => f.name === l.into);
      if (!field && scaffolded.fields.length < 196) {
        scaffolded.fields.push({ name: l.into, type: wanted, label: l.into });
        scaffolded.widgets[l.into] = DEFAULT_WIDGETS[wanted];
        into = l.into;
      } else if (field?.type === wanted) into = l.into;
    } else {
      const existing = collections.find((c) => c.name === from.targetCollection);
      const used = new Set(fieldMappings.filter((m) => m.entity === l.entity && m.targetField).map((m) => m.targetField));
      const names = l.as === 'media' ? [l.into, ...MEDIA_FIELD_NAMES] : [l.into];
      into = names.find((n) => existing?.fields.some((f) => f.name === n && f.type === wanted) && !used.has(n));
    }
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
  const scaffoldCollections = [...scaffolds.values()].map((s) => ({
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
    fieldMappings,
    operations,
    scaffoldCollections,
    estimatedDurationMs: Math.max(50, Math.round(total * 4 + attachments * 40)),
    total,
    blockedReasons,
    shortcodes: Object.entries(summary.shortcodes ?? {}).map(([name, count]) => ({ name, count })),
    ...(links.length ? { links } : {}),
  };
}
