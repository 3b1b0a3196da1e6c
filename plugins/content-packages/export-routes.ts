/** /api/content-export: validate, plan, run (through the data-operation engine), download, jobs. */
import { z } from 'zod';
import {
  ForbiddenError,
  ServiceUnavailableError,
  ValidationError,
  hasPermission,
  rulesOf,
  type Identity,
  defineRoute,
  type RouteDefinition,
  optional,
} from '../../kernel/sdk.js';
import {
  DATA_OPS_APPLY_JOB,
  applyAnswerSchema,
  applyBodySchema,
  jobsAnswerSchema,
  planViewSchema,
  type DataOpsEngine,
  type StoredPlan,
} from '../data-ops/public.js';
import { PackageNotFoundError, PackageNotReadyError } from './export-errors.js';
import { PACKAGE_ID, type ExportPackages, type PackageRow } from './export-packages.js';
import { checkSelection, selectionSchema } from './export-selection.js';
import { sendArchive } from './package-archive.js';
import { EXPORT_DOMAIN } from './public.js';

export interface ExportRouteDeps {
  packages: () => ExportPackages;
  estimateOf: (plan: StoredPlan) => number;
}

const engine = (scope: object): DataOpsEngine => {
  const e = optional(scope as never, 'dataOps');
  if (!e) throw new ServiceUnavailableError('The data-operation engine (plugin data-ops) is not available');
  return e;
};

const downloadUrl = (key: 'planId' | 'jobId', value: string) => `/api/content-export/download?${key}=${encodeURIComponent(value)}`;

const selectionAnswer = z.object({
  collections: z.array(z.string()),
  includeMedia: z.boolean().optional(),
  status: z.string().optional(),
  updatedFrom: z.string().optional(),
  updatedTo: z.string().optional(),
  filters: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});

const id = z.string().min(1).max(64);

/**
 * The package of a plan, of the plan a finished export job ran (409 while the job is queued or running),
 * or, for a jobId that is a package id, the package an inline run built (an inline 200 answers its
 * packageId as `jobId`, so `?jobId=` fetches what either kind of run made).
 */
async function packageFor(
  deps: ExportRouteDeps,
  scope: Record<string, any>,
  identity: Identity,
  query: { jobId?: string; planId?: string },
): Promise<PackageRow> {
  if (query.planId !== undefined) {
    const row = await deps.packages().byPlan(identity.tenantId, query.planId);
    if (!row) throw new PackageNotFoundError(`plan '${query.planId}'`);
    return row;
  }
  const jobId = query.jobId!;
  if (PACKAGE_ID.test(jobId)) {
    const row = await deps.packages().byPackage(identity.tenantId, jobId);
    if (!row) throw new PackageNotFoundError(`job '${jobId}'`);
    return row;
  }
  const job = await scope.jobs.get(jobId).catch(() => null);
  const payload = (job?.payload ?? null) as { planId?: string; domain?: string } | null;
  if (!job || job.type !== DATA_OPS_APPLY_JOB || job.tenantId !== identity.tenantId || payload?.domain !== EXPORT_DOMAIN || !payload.planId)
    throw new PackageNotFoundError(`job '${jobId}'`);
  if (job.status === 'queued' || job.status === 'running') throw new PackageNotReadyError(jobId, job.status);
  const row = await deps.packages().byPlan(identity.tenantId, payload.planId);
  if (!row) throw new PackageNotFoundError(`job '${jobId}' (the export did not complete)`);
  return row;
}

/** Whether the package's export selection was published entries only (its plan gone: not known, so no). */
/**
 * A package holds whole entries: a caller whose role's rules limit what it reads in one of the collections (fields,
 * entries or locales; kernel/access-rules.ts) may not build or download it (403 FORBIDDEN naming the collection).
 */
function assertUnruled(identity: Identity, collections: unknown): void {
  // Collections not known (a plan gone): any read rule refuses.
  const names = Array.isArray(collections)
    ? (collections as string[])
    : (identity.rules ?? []).filter((r) => r.action === 'read').map((r) => r.collection);
  const ruled = names.find((n) => rulesOf(identity, n, 'read').length > 0);
  if (ruled)
    throw new ForbiddenError(
      `Your role's rules limit what you read in '${ruled}'; a content package holds whole entries, so your role cannot export it`,
    );
}

async function onlyPublished(scope: object, row: PackageRow, identity: Identity): Promise<boolean> {
  if (!row.planId) return false;
  const plan = await engine(scope)
    .getPlan(row.planId, identity)
    .catch(() => null);
  return (plan?.input as { status?: unknown } | undefined)?.status === 'published';
}

/** POST /api/content-export/validate: checks a selection. */
function exportValidateRoute(): RouteDefinition {
  return defineRoute({
    method: 'POST',
    path: '/api/content-export/validate',
    permission: 'content:export',
    tags: ['content-export'],
    summary:
      'Checks an export selection: {valid: true, selection} (normalised), 400 VALIDATION_ERROR or 404 COLLECTION_NOT_FOUND naming every problem',
    request: { body: selectionSchema },
    response: z.object({ valid: z.literal(true), selection: selectionAnswer }),
    handler: async ({ body, scope, identity }) => {
      assertUnruled(identity, body.collections);
      return { valid: true as const, selection: await checkSelection(body, scope.collections) };
    },
  });
}

/** POST /api/content-export/plan: the engine's plan plus the size estimate. */
function exportPlanRoute(deps: ExportRouteDeps): RouteDefinition {
  return defineRoute({
    method: 'POST',
    path: '/api/content-export/plan',
    permission: 'content:export',
    tags: ['content-export'],
    summary:
      'Plans a content package of the selection (mode add): one create collection-file per collection, media-manifest, package; changes nothing',
    description:
      'The plan of the data-operation engine (30 minutes) plus `estimatedBytes` (uncompressed size estimate of the package). Warnings name relation ' +
      'fields whose targets are outside the selection (references leaving the selection, with their count) and media fields in use while ' +
      'includeMedia is off. Counts are those at planning time; run exports the entries as they are then.',
    request: { body: selectionSchema },
    response: planViewSchema.extend({ estimatedBytes: z.number().describe('estimated package size before compression, in bytes') }),
    handler: async ({ body, identity, scope }) => {
      assertUnruled(identity, body.collections);
      const dataOps = engine(scope);
      const view = await dataOps.plan(EXPORT_DOMAIN, body, undefined, identity);
      const stored = await dataOps.getPlan(view.planId, identity);
      return { ...view, estimatedBytes: deps.estimateOf(stored) };
    },
  });
}

/** POST /api/content-export/run: the engine's apply, answered with the package (inline) or the download URL (job). */
function exportRunRoute(deps: ExportRouteDeps): RouteDefinition {
  return defineRoute({
    method: 'POST',
    path: '/api/content-export/run',
    permission: 'content:export',
    tags: ['content-export'],
    summary:
      'Builds the package of a plan: 200 with the outcome (and jobId, packageId, downloadUrl) below 500 entries + media records, else 202 {jobId, status: queued, downloadUrl}',
    description:
      'Takes {planId, confirmed?, planHash?}. Refusals as every apply route (404 PLAN_NOT_FOUND, 410 PLAN_EXPIRED, 409 PLAN_ALREADY_APPLIED, ' +
      '409 PLAN_STALE when a selected collection schema changed since planning, 409 LOCK_CONTENTION). An inline run (200) answers `jobId` too: ' +
      'the packageId, which GET /api/content-export/download?jobId= accepts like the jobId of a background run (it is not a job: the jobs route does not list it).',
    request: { body: applyBodySchema },
    response: z.union([
      (applyAnswerSchema.options[0] as z.ZodObject).extend({
        jobId: z.string().optional().describe('the packageId: GET /api/content-export/download?jobId= fetches the package'),
        packageId: z.string().optional(),
        size: z.number().optional().describe('bytes of the archive'),
        sha256: z.string().optional().describe('SHA-256 of the archive'),
        downloadUrl: z.string().optional(),
      }),
      (applyAnswerSchema.options[1] as z.ZodObject).extend({ downloadUrl: z.string() }),
    ]),
    handler: async ({ ctx, body, identity, scope }) => {
      const answer = await engine(scope).apply(EXPORT_DOMAIN, body, identity);
      ctx.status = answer.status;
      if (answer.status === 202) return { ...answer.data, downloadUrl: downloadUrl('jobId', answer.data.jobId) };
      if (answer.data.outcome !== 'success') return answer.data;
      const row = await deps.packages().byPlan(identity.tenantId, answer.data.planId);
      return row
        ? {
            ...answer.data,
            jobId: row.packageId,
            packageId: row.packageId,
            size: row.size,
            sha256: row.sha256,
            downloadUrl: downloadUrl('planId', answer.data.planId),
          }
        : answer.data;
    },
  });
}

/** GET /api/content-export/download: the archive of a job or inline run. */
function exportDownloadRoute(deps: ExportRouteDeps): RouteDefinition {
  return defineRoute({
    method: 'GET',
    path: '/api/content-export/download',
    // The spec's table: content:read for the namespace's GETs. A package may hold drafts, which a reader
    // without content:write never sees through the entries API: the handler lets such a reader have only
    // a package of published entries (selection status: published); anything else needs content:export.
    permission: 'content:read',
    tags: ['content-export'],
    envelope: false,
    summary:
      'The package archive (application/gzip, attachment <packageId>.svelty-package) of an export job (?jobId=) or inline run (?planId=), streamed',
    description:
      'Accept-Ranges: bytes; one `Range: bytes=a-b` answers 206 with Content-Range (If-Range honoured), an unsatisfiable one 416 RANGE_NOT_SATISFIABLE; ' +
      'ETag is the archive SHA-256 (304 on If-None-Match). A job still queued or running: 409 PACKAGE_NOT_READY; unknown, failed, pruned or ' +
      "another tenant's: 404 PACKAGE_NOT_FOUND. Exactly one of jobId (a background run's jobId, or the jobId an inline run answered) and planId. " +
      'Needs content:read (the spec); a package that may hold drafts (its selection was not status: published) also needs content:export or content:write (403 FORBIDDEN).',
    request: {
      query: z
        .object({ jobId: id.optional().describe('the jobId of a 202 run'), planId: id.optional().describe('the planId of a 200 run') })
        .strict(),
    },
    handler: async ({ ctx, query, identity, scope }) => {
      if ((query.jobId === undefined) === (query.planId === undefined)) {
        const message = 'give exactly one of jobId and planId';
        throw new ValidationError(`Invalid query: ${message}`, [{ path: 'query.jobId', message }]);
      }
      const row = await packageFor(deps, scope, identity, query);
      if (identity.rules?.length) {
        const plan = row.planId
          ? await engine(scope)
              .getPlan(row.planId, identity)
              .catch(() => null)
          : null;
        assertUnruled(identity, (plan?.input as { collections?: unknown } | undefined)?.collections);
      }
      if (
        !hasPermission(identity, 'content:export') &&
        !hasPermission(identity, 'content:write') &&
        !(await onlyPublished(scope, row, identity))
      )
        throw new ForbiddenError(
          'This package may hold drafts: downloading it needs the content:export permission (a package of published entries only needs content:read)',
        );
      if (!(await sendArchive(ctx, deps.packages().archivePath(row.packageId), row.fileName, row.sha256)))
        throw new PackageNotFoundError(`package '${row.packageId}' (its archive is not on this instance)`);
    },
  });
}

/** GET /api/content-export/jobs: the background exports of the tenant. */
function exportJobsRoute(): RouteDefinition {
  return defineRoute({
    method: 'GET',
    path: '/api/content-export/jobs',
    permission: 'content:read',
    tags: ['content-export'],
    summary: 'Background content exports of your tenant, newest first (?jobId= narrows to one; unknown: 404 DATA_JOB_NOT_FOUND)',
    request: { query: z.object({ jobId: id.optional() }) },
    response: jobsAnswerSchema,
    handler: async ({ query, identity, scope }) => ({ jobs: await engine(scope).jobs(EXPORT_DOMAIN, identity, query.jobId) }),
  });
}

export function exportRoutes(deps: ExportRouteDeps): RouteDefinition[] {
  return [exportValidateRoute(), exportPlanRoute(deps), exportRunRoute(deps), exportDownloadRoute(deps), exportJobsRoute()];
}
