/**
 * The remote-facing endpoints every instance serves to its peers (/api/content-sync/remote/...). A peer
 * calls them with `Authorization: Bearer sck_...`, an API key of this instance holding content:read and
 * content:sync; everything happens in the key's tenant and as its identity.
 */
import { createReadStream } from 'node:fs';
import { z } from 'zod';
import { ForbiddenError, ValidationError, defineRoute, type RouteDefinition, KERNEL_VERSION } from '../../kernel/sdk.js';
import { conflictResolutionsSchema, IMPORT_DOMAIN } from '../content-packages/public.js';
import { applyRoute, planViewSchema, type DataRouteCommon } from '../data-ops/public.js';
import { SyncRangeError } from './errors.js';
import { remoteHelloSchema, remotePackageSchema, transferStateSchema } from './remote-shapes.js';
import { parseContentRange } from './transfer-store.js';
import type { SyncDeps } from './sync-deps.js';

const tags = ['content-sync'];
/** The peer endpoints act on the content-import domain of this instance. */
const common: DataRouteCommon = {
  domain: IMPORT_DOMAIN,
  prefix: '/api/content-sync/remote',
  tags,
  permissions: { read: 'content:sync', write: 'content:sync' },
};
/** Where a peer endpoint is (below common.prefix) and who may call it. */
const peer = (path: string) => ({ path: `${common.prefix}${path}`, permission: 'content:sync', tags });
const uuid = z.string().uuid();

/** `bytes=<start>-[<end>]` of a download (one range; anything else answers the whole file). */
function parseRange(header: string, size: number): { start: number; end: number } | null {
  const m = /^bytes=(\d{1,16})-(\d{0,16})$/.exec(header.trim());
  if (!m) return null;
  const start = Number(m[1]);
  const end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
  if (start >= size || end < start) throw new SyncRangeError(size);
  return { start, end };
}

/** Peer endpoints: hello and a package built for the caller. */
function peerPackageRoutes(deps: SyncDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      ...peer('/hello'),
      request: {},
      summary: "Peer endpoint: this installation's id, the CMS version and the collections (a channel's connection test)",
      response: remoteHelloSchema,
      async handler({ scope }) {
        return {
          installationId: await scope.contentPackages.installationId(),
          version: KERNEL_VERSION,
          collections: (scope.collections.list() as Array<{ name: string }>).map((c) => c.name),
        };
      },
    }),
    defineRoute({
      method: 'POST',
      ...peer('/packages'),
      request: {
        body: z.strictObject({
          collections: z.array(z.string().min(1).max(64)).min(1).max(500).optional(),
          peer: z.string().min(1).max(64).meta({ description: "The caller's installation id: entries carry the checksums agreed with it" }),
          includeMedia: z.boolean().optional(),
        }),
      },
      summary: 'Peer endpoint: builds a content package for the calling peer (a pull) to download with GET .../packages/:packageId',
      description: 'Default collections: all of this instance. Kept 24 hours; counts toward the open transfers.',
      response: remotePackageSchema,
      async handler({ scope, identity, body }) {
        const all = (scope.collections.list() as Array<{ name: string }>).map((c) => c.name);
        const missing = (body.collections ?? []).filter((c) => !all.includes(c));
        if (missing.length)
          throw new ValidationError(
            `Unknown collections: ${missing.join(', ')}`,
            missing.map((c) => ({ path: 'body.collections', message: `'${c}' does not exist` })),
          );
        const built = await scope.contentPackages.build(
          { collections: body.collections ?? all, ...(body.includeMedia ? { includeMedia: true } : {}) },
          identity,
          { peer: body.peer },
        );
        return deps.transfers().offerPackage(identity.tenantId, identity.userId, built.archivePath, built.size, built.sha256);
      },
    }),
  ];
}

/** Peer endpoints: download (ranges) and removal of a built package. */
function packageDownloadRoutes(deps: SyncDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      ...peer('/packages/:packageId'),
      request: { params: z.object({ packageId: uuid }) },
      envelope: false,
      summary: 'Peer endpoint: downloads a package built for the peer (application/gzip; one byte range with Range: 206, for resuming)',
      async handler({ ctx, identity, params }) {
        const file = await deps.transfers().packageFile(identity.tenantId, params.packageId);
        const range = ctx.get('range') ? parseRange(ctx.get('range'), file.size) : null;
        ctx.set('Accept-Ranges', 'bytes');
        ctx.set('X-Content-SHA256', file.sha256);
        ctx.type = 'application/gzip';
        if (range) {
          ctx.status = 206;
          ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
          ctx.length = range.end - range.start + 1;
          ctx.body = createReadStream(file.path, { start: range.start, end: range.end });
        } else {
          ctx.status = 200;
          ctx.length = file.size;
          ctx.body = createReadStream(file.path);
        }
      },
    }),
    defineRoute({
      method: 'DELETE',
      ...peer('/packages/:packageId'),
      request: { params: z.object({ packageId: uuid }) },
      summary: 'Peer endpoint: the peer has its package: removes it (it no longer counts toward the open transfers)',
      response: z.object({ deleted: z.boolean() }),
      async handler({ identity, params }) {
        const transfers = deps.transfers();
        await transfers.packageFile(identity.tenantId, params.packageId);
        await transfers.finish(identity.tenantId, params.packageId);
        return { deleted: true };
      },
    }),
  ];
}

/** Peer endpoints: an upload in chunks and its received bytes. */
function uploadStateRoutes(deps: SyncDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'PUT',
      ...peer('/uploads/:transferId'),
      request: { params: z.object({ transferId: uuid }) },
      summary: 'Peer endpoint: one chunk of a package upload (a push), raw bytes with Content-Range: bytes <start>-<end>/<total>',
      description:
        'The transfer id is chosen by the peer (a UUID); the chunk at offset 0 opens the transfer. A chunk at or before the bytes received is written there (a repeated chunk is harmless); one beyond them is 409 SYNC_TRANSFER_OFFSET with `received`. Too large or too many open transfers: 413 SYNC_TRANSFER_LIMIT.',
      response: transferStateSchema,
      async handler({ ctx, identity, params }) {
        const range = parseContentRange(ctx.get('content-range'));
        return deps.transfers().writeChunk(identity.tenantId, identity.userId, params.transferId, range, ctx.req);
      },
    }),
    defineRoute({
      method: 'GET',
      ...peer('/uploads/:transferId'),
      request: { params: z.object({ transferId: uuid }) },
      summary: 'Peer endpoint: the bytes received of an upload (to resume after a dropped connection)',
      response: transferStateSchema,
      handler: ({ identity, params }) => deps.transfers().uploadState(identity.tenantId, params.transferId),
    }),
  ];
}

/** Peer endpoints: plan a complete upload as a content import, and apply that plan. */
function uploadPlanRoutes(deps: SyncDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      ...peer('/uploads/:transferId/plan'),
      request: {
        params: z.object({ transferId: uuid }),
        body: z.strictObject({
          sha256: z.string().regex(/^[0-9a-fA-F]{64}$/),
          mode: z.enum(['merge', 'mirror']).optional(),
          conflictStrategy: z.enum(['skip', 'source']).optional(),
          resolutions: conflictResolutionsSchema.optional(),
        }),
      },
      summary:
        'Peer endpoint: validates a complete upload as a content import and plans it here (duplicate strategy update); answers the plan',
      description:
        'The upload must be complete and match `sha256` (409 SYNC_TRANSFER_INCOMPLETE); an invalid package is 400 VALIDATION_ERROR with its problems.',
      response: planViewSchema,
      async handler({ scope, identity, params, body }) {
        const transfers = deps.transfers();
        const path = await transfers.completeUpload(identity.tenantId, params.transferId, body.sha256);
        let received;
        try {
          received = await scope.contentPackages.receive(path, identity);
        } finally {
          await transfers.finish(identity.tenantId, params.transferId);
        }
        if (!received.valid)
          throw new ValidationError(
            `The package is not valid: ${received.problems.slice(0, 5).join('; ')}`,
            received.problems.slice(0, 20).map((p) => ({ path: 'package', message: p })),
          );
        const mode = body.mode ?? 'merge';
        return scope.dataOps.plan(
          IMPORT_DOMAIN,
          {
            uploadId: received.uploadId,
            duplicateStrategy: 'update',
            ...(body.conflictStrategy === 'source' ? { conflictStrategy: 'source' } : {}),
            ...(body.resolutions ? { resolutions: body.resolutions } : {}),
          },
          mode,
          identity,
        );
      },
    }),
    applyRoute(common, {
      path: '/api/content-sync/remote/apply',
      summary:
        'Peer endpoint: applies a content-import plan this key made with POST .../uploads/:transferId/plan (200 inline, 202 with a jobId at or above 500)',
      description:
        "Only plans of the content-import domain made by the key's own user; the engine's errors (PLAN_STALE, CONFIRMATION_REQUIRED, ...).",
      body: z.strictObject({ planId: z.string().min(1).max(100), planHash: z.string().min(1).max(200), confirmed: z.boolean() }),
      async before(request, { scope, identity }) {
        const plan = await scope.dataOps.getPlan(request.planId, identity);
        if (plan.domain !== IMPORT_DOMAIN || plan.actor.userId !== identity.userId)
          throw new ForbiddenError('Only content-import plans made through content sync by this key can be applied here');
      },
    }),
  ];
}

/** Peer endpoints: a content-import job, and the checksums agreed with a peer. */
function peerJobRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      ...peer('/jobs/:jobId'),
      request: { params: z.object({ jobId: z.string().min(1).max(100) }) },
      summary: 'Peer endpoint: a content-import apply job of this tenant (a push at or above 500 entities)',
      async handler({ scope, identity, params }) {
        return (await scope.dataOps.jobs(IMPORT_DOMAIN, identity, params.jobId))[0];
      },
    }),
    defineRoute({
      method: 'POST',
      ...peer('/bases'),
      request: {
        body: z.strictObject({
          peer: z.string().min(1).max(64),
          items: z
            .array(
              z.strictObject({
                collection: z.string().min(1).max(64),
                syncId: z.string().min(1).max(36),
                checksum: z.string().regex(/^[0-9a-f]{64}$/),
              }),
            )
            .max(1000),
        }),
      },
      summary: "Peer endpoint: records the checksums both sides agree on after the peer's pull (the base of conflict detection)",
      response: z.object({ recorded: z.number().int() }),
      async handler({ scope, identity, body }) {
        await scope.contentPackages.recordBases(identity.tenantId, body.peer, body.items);
        return { recorded: body.items.length };
      },
    }),
  ];
}

export function remoteRoutes(deps: SyncDeps): RouteDefinition[] {
  return [
    ...peerPackageRoutes(deps),
    ...packageDownloadRoutes(deps),
    ...uploadStateRoutes(deps),
    ...uploadPlanRoutes(deps),
    ...peerJobRoutes(),
  ];
}
