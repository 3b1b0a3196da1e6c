import { z } from 'zod';
import { multipartFile, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { FIELD_TYPES } from '../content/public.js';
import { jobsAnswerSchema, summarySchema } from '../data-ops/public.js';
import { entityMapping, localeMappings } from './domain.js';

// The two event-stream handlers load on their first request, not at boot.
let jobEvents: Promise<typeof import('./job-events.js')> | undefined;
let importStream: Promise<typeof import('./stream.js')> | undefined;
const loadJobEvents = () => (jobEvents ??= import('./job-events.js'));
const loadImportStream = () => (importStream ??= import('./stream.js'));

const warning = z.object({ message: z.string(), line: z.number().optional() });
const statusPolicy = z.enum(['keep', 'draft']);
const runSummary = z.object({
  jobId: z.string(),
  format: z.string(),
  source: z.string().describe("the format's label"),
  filename: z.string().nullable(),
  status: z.enum(['processing', 'completed', 'failed']),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  by: z.object({ userId: z.string().nullable(), name: z.string().nullable() }),
  counts: z.object({ imported: z.number(), updated: z.number(), skipped: z.number(), failed: z.number() }),
  targets: z.array(
    z.object({
      sourceType: z.string(),
      targetCollection: z.string(),
      target: z.enum(['new', 'existing']),
      statuses: statusPolicy,
      count: z.number(),
    }),
  ),
});
const fieldType = z.enum(FIELD_TYPES);
/** One step of an import plan (planner.ts Operation is its type). */
export const importOperationSchema = z.object({
  action: z.enum(['create', 'update', 'skip', 'scaffold']),
  sourceType: z.string(),
  targetCollection: z.string().nullable(),
  count: z.number(),
  note: z.string().optional(),
  target: z
    .enum(['new', 'existing'])
    .optional()
    .describe('new: this import creates the collection; existing: the entries go into a collection that exists'),
  statuses: statusPolicy.optional().describe('keep: the source statuses are kept; draft: every record is imported as a draft'),
  emptyFields: z.array(z.string()).optional().describe('existing target: its fields no source field fills'),
  requiredMissing: z
    .array(z.string())
    .optional()
    .describe('existing target: required fields no source field fills (each is a blocked reason)'),
  unmappedFields: z.array(z.string()).optional().describe('source fields that go into no field'),
});
const planSchema = z.object({
  planId: z.string(),
  uploadId: z.string(),
  format: z.string(),
  scaffold: z.boolean(),
  mode: z.enum(['add', 'merge']),
  fieldMappings: z.array(
    z.object({
      entity: z.string(),
      sourceField: z.string(),
      targetField: z.string().nullable(),
      confidence: z.number(),
      type: fieldType.nullable(),
      collection: z
        .string()
        .optional()
        .describe(
          "a relation: the collection of the entries it points at (set after the records are written, from the source's references)",
        ),
      cardinality: z.enum(['one', 'many']).optional().describe('a relation: one entry, or an ordered list of entries'),
    }),
  ),
  operations: z.array(importOperationSchema),
  estimatedDurationMs: z.number(),
  collections: z.array(
    z.object({
      name: z.string(),
      fields: z.array(
        z.object({
          name: z.string(),
          type: fieldType,
          label: z.string(),
          collection: z.string().optional().describe('a relation field: its target collection'),
          cardinality: z.enum(['one', 'many']).optional().describe('a relation field: one entry or an ordered list'),
        }),
      ),
      widgets: z.record(z.string(), z.string()),
    }),
  ),
  shortcodes: z
    .array(z.object({ name: z.string(), count: z.number() }))
    .describe(
      'shortcodes the source content uses (WordPress: [gallery], [caption]...), with how often: imported as written, never expanded',
    ),
  locales: z
    .array(
      z.object({
        source: z.string().describe('the language code as the source spells it'),
        count: z.number().describe('records in this language'),
        entities: z.array(z.string()),
        action: z.enum(['use', 'create', 'skip']).describe('use an existing locale, create it before the run, or leave these records out'),
        target: z.string().nullable().describe('the installation locale its records go to'),
        isDefault: z.boolean().describe("the target is the default locale: its records write the entries' own values"),
        note: z.string().optional(),
      }),
    )
    .optional()
    .describe("the source's languages (absent when it has none) and the installation locale each is imported into"),
  defaultLocale: z.string().nullable().optional().describe("the installation's default locale"),
  planHash: z.string().describe("the engine plan's hash (data-operation lifecycle)"),
  risk: z.enum(['safe', 'warning', 'destructive']),
  requiresConfirmation: z.boolean(),
  summary: summarySchema.describe(
    'records per action as planned (the run reports the actual counts in its audit entry and completion event)',
  ),
  warnings: z.array(z.object({ message: z.string(), item: z.string().optional() })),
  blockedReasons: z.array(z.string()),
  expiresAt: z.string().describe('the plan may be run until then (30 minutes), then 410 PLAN_EXPIRED'),
});
const skipReasons = z.object({
  alreadyImported: z.number().optional().describe('imported into this collection before (mode add)'),
  unchanged: z.number().optional().describe('imported before and unchanged (mode merge)'),
  duplicateInFile: z.number().optional().describe('an external id repeated within the file'),
  notMapped: z.number().optional().describe('the entity is not mapped to a collection'),
  localeSkipped: z.number().optional().describe('records in a language the plan leaves out (locales)'),
});
const results = z.record(
  z.string(),
  z.object({ imported: z.number(), failed: z.number(), skipped: z.number(), updated: z.number(), skipReasons: skipReasons.optional() }),
);

export const importerRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/importers/sources',
    permission: 'content:read',
    tags: ['importers'],
    summary: 'The registered import formats: format, label, extensions, description, features',
    request: {},
    response: z.object({
      sources: z.array(
        z.object({
          format: z.string(),
          label: z.string(),
          extensions: z.array(z.string()),
          description: z.string(),
          features: z.array(z.string()),
        }),
      ),
    }),
    handler: ({ scope }) => scope.importers.sources(),
  }),
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/importers/validate',
    permission: 'content:write',
    tags: ['importers'],
    summary:
      'Uploads an export (multipart: `file`, optional `format` hint), detects its format from the content and parses it in the worker pool',
    description:
      'The upload is streamed into a job folder (<data>/imports/<uploadId>/); the profile and the parse run in the worker pool. valid is false (still 200) when ' +
      'no format recognises the file or the parser reports blocked reasons. A format hint that is not registered -> 400 IMPORT_FORMAT_UNKNOWN; one whose detector ' +
      'gives the file no confidence -> 400 IMPORT_FORMAT_MISMATCH. Over IMPORT_MAX_BYTES -> 413. Past a parse limit (decompressed size, compression ratio, ' +
      'archive entries, line length, analysis time) -> 413 IMPORT_LIMIT_EXCEEDED naming the limit, with nothing kept. An empty file is valid: false with ' +
      '"The file is empty.". Answers uploadId for preview.',
    request: {
      multipart: z.object({
        file: multipartFile('the export to import'),
        format: z.string().max(64).optional().describe('format hint (GET /api/importers/sources)'),
        strict: z
          .enum(['true', 'false'])
          .optional()
          .describe(
            'CSV: refuse malformed rows (wrong field count, stray quotes) instead of keeping them with warnings; default importers.csvStrict (false)',
          ),
      }),
    },
    response: z.object({
      valid: z.boolean(),
      detectedFormat: z.string().nullable(),
      confidence: z.number(),
      summary: z.record(z.string(), z.number()),
      acfFields: z.array(z.string()),
      warnings: z.array(warning),
      blockedReasons: z.array(z.string()),
      uploadId: z.string(),
    }),
    handler: ({ ctx, identity, scope }) => scope.importers.validate(ctx, identity),
  }),
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/importers/preview',
    permission: 'content:write',
    tags: ['importers'],
    summary:
      'Plans the import of a validated upload: target collections, field mappings with confidence and type, operations, estimated duration',
    description:
      "uploadId defaults to the caller's latest valid upload. mappings: source entity -> collection name, false to leave it out, or {collection, fields: " +
      '{sourceField: targetField|null}, statuses}; omitted fields are mapped automatically by name. An omitted entity never goes into an existing collection ' +
      'of yours: its target is a new collection named after it, or <name>_<source> (articles_strapi) when that name is taken (a collection an earlier ' +
      'import of the same format filled is reused). A required field of an existing target that no source field fills is a blocked reason. scaffold: true creates missing collections (needs ' +
      'collections:manage) with fields inferred from the source and a `_source_import` field. mode: add (default: records imported before are skipped) or merge (updated when changed). ' +
      "The plan is stored by the data-operation engine (domain importer): planId, planHash, risk, summary, warnings (entities not imported), blockedReasons and expiresAt (30 minutes) beside the importer's fields.",
    request: {
      body: z.object({
        format: z.string().min(1).max(64),
        uploadId: z.string().uuid().optional(),
        mappings: z.record(z.string(), entityMapping).optional(),
        locales: localeMappings
          .optional()
          .describe(
            "source language code -> an existing locale's code, false to leave its records out, or {target?, create: true} to create the locale " +
              '(system:settings in the default tenant). Default: the locale of the same code, else create it when the caller may, else skip.',
          ),
        scaffold: z.boolean().optional(),
        mode: z.enum(['add', 'merge']).optional(),
        statuses: statusPolicy
          .optional()
          .describe(
            "keep the source's statuses or import everything as drafts; default per entity: keep into a new collection, draft into an existing one",
          ),
      }),
    },
    response: planSchema,
    handler: ({ body, identity, scope }) => scope.importers.preview(identity, body),
  }),
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/importers/run',
    permission: 'content:write',
    tags: ['importers'],
    envelope: false,
    summary: 'Runs a plan (confirmed: true): below 100 entities inline (done when this answers), at or above as a background job',
    description:
      'Answers the spec\'s {success, jobId, status: "processing", message} in both cases; GET /api/importers/jobs/:jobId shows progress and results (an inline run ' +
      'is already completed there). confirmed other than true -> 400 IMPORT_NOT_CONFIRMED; a plan run twice -> 409 IMPORT_ALREADY_RUN. The run goes through the ' +
      'data-operation engine (domain importer): its lock per tenant (another importer run of the tenant holding it past DATA_OPS_LOCK_WAIT_MS -> 409 LOCK_CONTENTION, the plan may be run again), ' +
      'the staleness check (target collections or ledger changed since the preview -> 409 PLAN_STALE), 410 PLAN_EXPIRED after 30 minutes, one audit entry (domain importer) and ' +
      'a completion event on GET /api/data-ops/events; at or above 100 entities the engine job (GET /api/importers/jobs) runs it.',
    request: { body: z.object({ planId: z.string().uuid(), confirmed: z.boolean() }) },
    response: z.object({ success: z.literal(true), jobId: z.string(), status: z.literal('processing'), message: z.string() }),
    handler: async ({ ctx, body, identity, scope }) => {
      ctx.body = await scope.importers.run(identity, body);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/importers/jobs',
    permission: 'content:read',
    tags: ['importers'],
    summary: "The importer's background runs in the shared data-operation jobs shape, newest first",
    description:
      'data: {jobs: [{jobId, domain: "importer", status, progress, outcome?, summary?, createdAt, completedAt?, importJobId?}]}: the engine jobs of runs at or above the ' +
      "threshold (inline runs have none). importJobId is the id of GET /api/importers/jobs/:jobId; while a job runs its progress is the import's. ?jobId= narrows to one " +
      '(an engine job id or an import job id); unknown -> 404 DATA_JOB_NOT_FOUND.',
    request: { query: z.object({ jobId: z.string().min(1).max(64).optional() }) },
    response: z.object({
      jobs: z.array(jobsAnswerSchema.shape.jobs.element.extend({ importJobId: z.string().optional() })),
    }),
    handler: async ({ query, identity, scope }) => ({ jobs: await scope.importers.jobsList(identity, query.jobId) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/importers/jobs/:jobId',
    permission: 'content:read',
    tags: ['importers'],
    summary:
      'An import job: status, progress {processed, total}, per-entity results {imported, failed, skipped, updated}, duration, warnings',
    request: { params: z.object({ jobId: z.string().min(1).max(64) }) },
    response: z.object({
      jobId: z.string(),
      status: z.enum(['processing', 'completed', 'failed']),
      format: z.string(),
      progress: z.object({ processed: z.number(), total: z.number() }),
      results,
      durationMs: z.number(),
      completedAt: z.string().nullable(),
      warnings: z.array(warning),
      error: z.string().optional(),
    }),
    handler: ({ params, identity, scope }) => scope.importers.job(identity, params.jobId),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/importers/runs',
    permission: 'content:read',
    tags: ['importers'],
    summary: "Past import runs of the caller's tenant, newest first: source, file, when, who, targets, counts, result",
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }) },
    response: z.object({ runs: z.array(runSummary) }),
    handler: async ({ query, identity, scope }) => ({ runs: await scope.importers.runs(identity, query.limit ?? 50) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/importers/runs/:jobId',
    permission: 'content:read',
    tags: ['importers'],
    summary: 'One past run again: summary, per-entity results, warnings (skips and failures with reasons) and the items it imported',
    description:
      "items: the entries this run created or updated (entity, the source's id, collection, entry id), `limit` (at most 200, default 50) from `offset`; " +
      'itemsTotal counts them all. A job of another tenant or unknown -> 404 IMPORT_JOB_NOT_FOUND.',
    request: {
      params: z.object({ jobId: z.string().min(1).max(64) }),
      query: z.object({
        offset: z.coerce.number().int().min(0).max(10_000_000).optional(),
        limit: z.coerce.number().int().min(1).max(200).optional(),
      }),
    },
    response: z.object({
      run: runSummary,
      results,
      warnings: z.array(warning),
      error: z.string().optional(),
      items: z.array(
        z.object({
          entity: z.string(),
          externalId: z.string(),
          collection: z.string(),
          entryId: z.string(),
          locale: z.string().optional().describe('the locale the record was written to (a source with languages: one item per language)'),
        }),
      ),
      itemsTotal: z.number(),
    }),
    handler: ({ params, query, identity, scope }) =>
      scope.importers.runView(identity, params.jobId, { offset: query.offset ?? 0, limit: query.limit ?? 50 }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/importers/jobs/:jobId/events',
    permission: 'content:read',
    tags: ['importers'],
    envelope: false,
    summary: 'Follows an import job as server-sent events: progress, then complete or error (what POST /api/migration/import sends)',
    description:
      '`event: progress` {step: "importing", message, percent} whenever the count moves, then `event: complete` {imported, failed, skipped, durationMs, jobId} or ' +
      '`event: error` {success: false, error, message}. A job that has finished answers its final event at once. Unknown job -> 404 IMPORT_JOB_NOT_FOUND (JSON).',
    request: { params: z.object({ jobId: z.string().min(1).max(64) }) },
    handler: async ({ ctx, params, identity, scope }) =>
      (await loadJobEvents()).streamJobEvents(ctx, identity, scope.importers, params.jobId),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/migration/import',
    permission: 'content:write',
    tags: ['importers'],
    envelope: false,
    summary: 'Uploads and imports in one request, answering a server-sent event stream (progress, complete, error)',
    description:
      'Multipart: `file`, optional `format`, `collection` (target of the entity with the most records) and `scaffold` (true/false). Refusals of the upload itself ' +
      '(415, 413, 400) are JSON errors; after that the answer is text/event-stream: `event: progress` {step: detecting|parsing|mapping|importing, message, percent}, ' +
      'then `event: complete` {imported, failed, skipped, durationMs}, or `event: error` {success: false, error, message}.',
    request: {
      multipart: z.object({
        file: multipartFile('the export to import'),
        format: z.string().max(64).optional(),
        collection: z.string().max(48).optional(),
        scaffold: z.enum(['true', 'false']).optional(),
        strict: z.enum(['true', 'false']).optional().describe('CSV strict mode (see validate)'),
      }),
    },
    handler: async ({ ctx, identity, scope }) => (await loadImportStream()).streamImport(ctx, identity, scope.importers),
  }),
];
