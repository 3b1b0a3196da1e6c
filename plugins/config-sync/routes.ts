import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { ValidationError } from '../../kernel/errors.js';
import { isInstallationAdmin, type Identity } from '../../kernel/http/identity.js';
import { multipartFile } from '../../kernel/http/multipart-file.js';
import { receiveMultipartFile } from '../../kernel/http/receive-multipart.js';
import { defineRoute, type RouteDefinition } from '../../kernel/http/route-table.js';
import { applyRoute, historyRoute, planRoute, type DataRouteCommon } from '../data-ops/public.js';
import { BUNDLE_MAX_BYTES, BundleError, UploadNotFound } from './config-sync-service.js';
import { configInputSchema, configPlanInputSchema } from './domain.js';
import { RESOURCE_TYPES } from './resources.js';

/**
 * A folder of the data folder as answered: the absolute server path for the installation's
 * administrators, relative to the data folder (`config/sync/tenants/<id>`) for everyone else.
 */
const shownPath = (scope: Record<string, any>, identity: Identity, path: string): string =>
  isInstallationAdmin(identity)
    ? path
    : relative(scope.config.dataPath as string, path)
        .split('\\')
        .join('/');

const tags = ['config'];
const common: DataRouteCommon = {
  domain: 'config',
  prefix: '/api/config',
  tags,
  permissions: { read: 'config:read', write: 'config:write' },
};
const mode = z.enum(['add', 'merge', 'mirror', 'replace']);
const state = z.enum(['same', 'changed', 'onlyInDatabase', 'onlyInFiles']);
const statusView = z
  .object({
    inSync: z.boolean(),
    summary: z.object({
      same: z.number().int(),
      changed: z.number().int(),
      onlyInDatabase: z.number().int(),
      onlyInFiles: z.number().int(),
    }),
    items: z.array(z.object({ type: z.enum(RESOURCE_TYPES), name: z.string(), state })),
  })
  .meta({ id: 'ConfigStatus' });
const statusRoute = (path: string, deprecated: boolean): RouteDefinition =>
  defineRoute({
    method: 'GET',
    path,
    permission: 'config:read',
    tags,
    request: {
      query: z.object({
        uploadId: z.string().min(1).max(64).optional().describe('compare the database with an uploaded bundle instead of the sync files'),
      }),
    },
    summary: deprecated
      ? `Deprecated alias of GET /api/config/status (answers the same with a Deprecation header)`
      : 'Drift between the sync files and the database: inSync, counts per state and one item per resource',
    description:
      'States: same, changed (the file and the database differ, or the file cannot be read or fails its checksum), onlyInDatabase, onlyInFiles.',
    response: statusView,
    async handler({ ctx, scope, identity, query }) {
      if (deprecated) {
        ctx.set('Deprecation', 'true');
        ctx.set('Link', '</api/config/status>; rel="successor-version"');
      }
      try {
        return await scope.configSync.status(identity.tenantId, undefined, query.uploadId);
      } catch (err) {
        if (err instanceof UploadNotFound) throw new ValidationError(err.message, [{ path: 'query.uploadId', message: err.message }]);
        throw err;
      }
    },
  });

/** The routes of /api/config (the spec's data-operation table), and the deprecated status aliases. */
export const configRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/config/resources',
    permission: 'config:read',
    tags,
    request: {},
    summary: 'The resource types of configuration promotion with their counts in the database and in the sync files',
    description:
      'Types: collection (schemas; exported and diffed, never applied: they alter tables), role, theme, setting (public settings only), dashboard (default-layout: the default widgets of a new dashboard).',
    response: z.object({
      path: z.string(),
      resources: z.array(
        z.object({
          type: z.enum(RESOURCE_TYPES),
          label: z.string(),
          available: z.boolean(),
          applied: z.boolean(),
          count: z.number().int(),
          files: z.number().int(),
        }),
      ),
    }),
    async handler({ scope, identity }) {
      return {
        path: shownPath(scope, identity, scope.configSync.folder(identity.tenantId)),
        resources: await scope.configSync.resources(identity.tenantId),
      };
    },
  }),
  statusRoute('/api/config/status', false),
  statusRoute('/api/config_sync', true),
  statusRoute('/api/config-sync', true),
  defineRoute({
    method: 'POST',
    path: '/api/config/export',
    permission: 'config:write',
    tags,
    request: { body: configInputSchema.optional() },
    summary:
      'Writes config/sync/<type>/<name>.json under the data folder, one file per resource; removes files of resources no longer in the database',
    description:
      'Each file is {uuid, type, name, checksum, data}: the uuid of an existing file is kept; checksum is the SHA-256 of the canonical JSON of data. Private settings are never exported. ' +
      "path is the folder's absolute server path for the installation's administrators (admins of the default tenant), relative to the data folder for everyone else.",
    response: z.object({ written: z.number().int(), path: z.string() }),
    async handler({ scope, identity, body, logger }) {
      const service = scope.configSync;
      const types = body?.types ? service.types().filter((t) => body.types!.includes(t)) : undefined;
      const started = Date.now();
      const { written, path, removed } = await service.export(identity.tenantId, types);
      // The spec's audit entry (operation export); non-blocking like the engine's.
      await scope.audit
        .append({
          domain: 'config',
          operation: 'export',
          planId: null,
          mode: null,
          actor: { userId: identity.userId, tenantId: identity.tenantId },
          outcome: 'success',
          summary: { created: written, updated: 0, deleted: removed, skipped: 0, failed: 0 },
          durationMs: Date.now() - started,
          action: 'config.export',
          message: `configuration exported: ${written} files written, ${removed} removed`,
        })
        .catch((err: unknown) => logger.warn({ err }, 'config export audit entry failed'));
      return { written, path: shownPath(scope, identity, path) };
    },
  }),
  planRoute(common, {
    summary:
      'Dry run: diffs the sync files (or an uploaded bundle) against the database in a mode (add, merge default, mirror, replace); stores and answers the plan, changes nothing',
    description:
      'Files are matched to database resources by syncId (uuid), then external id, then type + name; `mappings` overrides the match ("<type>/<file name>" -> a database name, or null = new). ' +
      'A file with several candidates is a warning and a blocked reason until mapped. 400 VALIDATION_ERROR for an unknown or expired uploadId, or a mapping naming no file or a missing resource.',
    body: configPlanInputSchema.extend({ mode: mode.optional() }).optional(),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/config/bundle',
    permission: 'config:read',
    tags,
    request: {},
    envelope: false,
    summary: 'Downloads the database state as a configuration bundle (JSON attachment) to upload on another instance',
    description:
      'The body is {format: "cms-config-bundle", version: 1, files: [{uuid, type, name, checksum, externalId, data}]}: the entries export would write (uuid = syncId, externalId = the id in this database). Private settings are never included.',
    async handler({ ctx, scope, identity }) {
      const bundle = await scope.configSync.bundle(identity.tenantId);
      ctx.set('Content-Disposition', 'attachment; filename="config-bundle.json"');
      ctx.type = 'application/json';
      ctx.body = bundle;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/config/bundle',
    permission: 'config:write',
    tags,
    request: { multipart: z.object({ file: multipartFile('the bundle (JSON) from GET /api/config/bundle of another instance') }) },
    summary: 'Uploads a configuration bundle to plan against (POST /api/config/plan {uploadId}); kept for one hour',
    description:
      'Multipart field `file`, at most 16 MiB (413 above). Not JSON or not {files: [...]} -> 400 VALIDATION_ERROR. Each entry is checked like a sync file (shape, type, checksum of its data, data): ' +
      'failing entries are listed in `problems` (valid: false) and block a plan made from the upload.',
    response: z.object({
      uploadId: z.string(),
      valid: z.boolean(),
      files: z.number().int(),
      problems: z.array(z.object({ file: z.string(), problem: z.string() })),
      expiresAt: z.string(),
    }),
    async handler({ ctx, scope, identity }) {
      const dir = join(scope.config.dataPath as string, 'config', 'uploads');
      await mkdir(dir, { recursive: true });
      const target = join(dir, `${randomUUID()}.json`);
      try {
        const received = await receiveMultipartFile(ctx, target, BUNDLE_MAX_BYTES, '16 MiB (configuration bundle)');
        let value: unknown;
        try {
          value = JSON.parse(await readFile(target, 'utf8'));
        } catch {
          throw new ValidationError('The bundle is not valid JSON', [{ path: 'file', message: 'not valid JSON' }]);
        }
        try {
          return await scope.configSync.storeUpload(identity.tenantId, identity.userId, value, received.size);
        } catch (err) {
          if (err instanceof BundleError) throw new ValidationError(err.message, [{ path: 'file', message: err.message }]);
          throw err;
        }
      } finally {
        await rm(target, { force: true });
      }
    },
  }),
  applyRoute(common, {
    summary: 'Applies a stored plan: 200 with the outcome when inline, 202 with a jobId at or above 100 entities',
    description:
      'Errors: 404 PLAN_NOT_FOUND, 410 PLAN_EXPIRED, 409 CONFIRMATION_REQUIRED (mirror/replace without confirmed: true), 409 PLAN_STALE, 409 LOCK_CONTENTION, 400 PLAN_BLOCKED.',
  }),
  historyRoute(common, {
    summary:
      "The config domain's applies, newest first: background jobs and inline applies (jobId null, inline true); ?jobId= narrows to one job",
  }),
];
