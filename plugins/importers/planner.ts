import { ValidationError } from '../../kernel/errors.js';
import type { ImportFieldKind, ImportParseSummary } from '../../kernel/registries/contracts.js';
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

/** `mappings[entity]`: a collection name, false/null to leave the entity out, or a collection plus per-field targets. */
export type EntityMapping = string | null | false | { collection?: string; fields?: Record<string, string | null> };

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
}

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
): { skip: boolean; collection?: string; fields: Record<string, string | null> } {
  const m = mappings?.[entity];
  if (m === false || m === null) return { skip: true, fields: {} };
  if (typeof m === 'string') return { skip: false, collection: m, fields: {} };
  if (m && typeof m === 'object') return { skip: false, collection: m.collection, fields: m.fields ?? {} };
  return { skip: false, fields: {} };
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
}): ImportPlan {
  const { summary, collections, scaffold } = input;
  const fieldMappings: FieldMapping[] = [];
  const operations: Operation[] = [];
  const scaffolds = new Map<string, ScaffoldCollection>();
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
    const name = spec.collection ?? (entity === 'rows' ? collectionNameFor(input.filename) : collectionNameFor(entity));
    const existing = collections.find((c) => c.name === name);
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
      operations.push({ action: 'create', sourceType: entity, targetCollection: name, count, ...(note ? { note } : {}) });
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
      });
    } else {
      for (const source of sources)
        fieldMappings.push({ entity, sourceField: source, targetField: null, confidence: 0, type: FIELD_TYPE_OF_KIND[kinds[source]!] });
      operations.push({
        action: 'skip',
        sourceType: entity,
        targetCollection: null,
        count,
        note: `There is no collection '${name}' yet: choose a collection for the ${entity}, or let the import create it (Create missing collections; scaffold: true in the API)`,
      });
      continue;
    }
    total += count;
    if (entity === 'attachments') attachments += count;
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
  };
}
