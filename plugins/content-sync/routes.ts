/**
 * /api/content-sync: channels (the key never answered), plan (push or pull), push, pull and jobs
 * (both domains). The remote-facing endpoints are in routes-remote.ts.
 */
import { z } from 'zod';
import { AppError, ValidationError, defineRoute, type RouteDefinition, checkOutboundUrl, OutboundAddressError } from '../../kernel/sdk.js';
import { applyRoute, jobsAnswerSchema, planRoute, type DataJobView, type DataRouteCommon } from '../data-ops/public.js';
import { SyncChannelExistsError, SyncUrlForbiddenError } from './errors.js';
import { PULL_DOMAIN, PUSH_DOMAIN } from './public.js';
import { syncInputSchema } from './sync-common.js';
import type { SyncDeps } from './sync-deps.js';

const tags = ['content-sync'];
/** A route below /api/content-sync, with its permission. */
const at = (path: string, permission: 'content:read' | 'content:sync') => ({ path: `/api/content-sync${path}`, permission, tags });
const channelView = z
  .object({ channelId: z.string(), name: z.string(), url: z.string(), remoteInstallationId: z.string().nullable(), createdAt: z.string() })
  .meta({ id: 'ContentSyncChannel' });
const channelIdParam = z.object({ channelId: z.string().min(1).max(36) });
/** Push and pull: the domain is chosen per route (apply) or by the plan body's direction. */
const common: DataRouteCommon = {
  domain: PUSH_DOMAIN,
  prefix: '/api/content-sync',
  tags,
  permissions: { read: 'content:read', write: 'content:sync' },
};

const channelUrl = z
  .string()
  .min(1)
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password && !u.search && !u.hash;
    } catch {
      return false;
    }
  }, 'an http or https URL without credentials, query or fragment (the remote instance base URL)');

const testAnswer = z.object({
  ok: z.boolean(),
  remoteInstallationId: z.string().nullable(),
  latencyMs: z.number().int(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/** An audit entry of a channel change (domain content-sync); non-blocking like the engine's. Never the key. */
async function auditChannel(
  scope: { audit: { append(e: unknown): Promise<unknown> } },
  logger: { warn(o: unknown, m: string): void },
  identity: { userId: string | null; tenantId: string },
  operation: 'channel-create' | 'channel-delete',
  channel: { channelId: string; name: string; url: string },
): Promise<void> {
  await scope.audit
    .append({
      domain: 'content-sync',
      operation,
      planId: null,
      mode: null,
      actor: { userId: identity.userId, tenantId: identity.tenantId },
      outcome: 'success',
      level: 'medium',
      action: `content-sync.${operation}`,
      message: `content-sync channel '${channel.name}' (${channel.url}) ${operation === 'channel-create' ? 'created' : 'deleted'}`,
      details: { channelId: channel.channelId, url: channel.url },
    })
    .catch((err: unknown) => logger.warn({ err }, 'content-sync channel audit entry failed'));
}

/** The channels of this tenant: list and create (the key never answered). */
function channelListRoutes(deps: SyncDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      ...at('/channels', 'content:read'),
      request: {},
      summary: "The tenant's content-sync channels (never their keys)",
      response: z.object({ channels: z.array(channelView) }),
      async handler({ identity }) {
        return { channels: await deps.channels().list(identity.tenantId) };
      },
    }),
    defineRoute({
      method: 'POST',
      ...at('/channels', 'content:sync'),
      status: 201,
      request: {
        query: z.object({ test: z.enum(['true', 'false']).optional().describe('false: store without testing the connection') }),
        body: z.strictObject({
          name: z.string().trim().min(1).max(191),
          url: channelUrl,
          apiKey: z
            .string()
            .min(1)
            .max(500)
            .describe('An API key of the remote instance with content:read and content:sync; stored encrypted, never answered'),
        }),
      },
      summary: 'Creates a channel to a remote instance; tests the connection first (remote hello) unless ?test=false',
      description:
        'A URL whose host is or resolves to a loopback, link-local, private or unique-local address is 400 SYNC_URL_FORBIDDEN (checked again at each connection) unless the operator set CMS_OUTBOUND_ALLOW_PRIVATE=true. ' +
        "A remote that cannot be reached is 502 SYNC_REMOTE_UNREACHABLE (504 SYNC_REMOTE_TIMEOUT), a key it refuses 400 SYNC_REMOTE_AUTH_FAILED (the reason in words, never the remote's text); nothing is stored then. 409 SYNC_CHANNEL_EXISTS for a name in use.",
      response: channelView,
      async handler({ scope, logger, identity, query, body }) {
        const channels = deps.channels();
        if (await channels.nameTaken(identity.tenantId, body.name)) throw new SyncChannelExistsError(body.name);
        // Before anything is sent (also with ?test=false): an internal address is refused here and again at each connection.
        await checkOutboundUrl(body.url, deps.allowPrivate).catch((err: unknown) => {
          throw err instanceof OutboundAddressError ? new SyncUrlForbiddenError(err.host) : err;
        });
        let remoteInstallationId: string | null = null;
        if (query.test !== 'false') {
          const hello = await deps
            .client({ channelId: '', name: body.name, url: body.url, apiKey: body.apiKey, remoteInstallationId: null, createdAt: '' })
            .hello();
          remoteInstallationId = hello.installationId;
          if (remoteInstallationId === (await deps.cradle().contentPackages.installationId()))
            throw new ValidationError('The URL points to this installation itself', [{ path: 'body.url', message: 'this installation' }]);
        }
        const created = await channels.create(identity.tenantId, { ...body, remoteInstallationId, createdBy: identity.userId });
        await auditChannel(scope, logger, identity, 'channel-create', created);
        return created;
      },
    }),
  ];
}

/** One channel: delete and the connection test. */
function channelRoutes(deps: SyncDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'DELETE',
      ...at('/channels/:channelId', 'content:sync'),
      request: { params: channelIdParam },
      summary: 'Deletes a channel (its encrypted key with it); 404 SYNC_CHANNEL_NOT_FOUND',
      response: z.object({ deleted: z.boolean() }),
      async handler({ scope, logger, identity, params }) {
        const channel = await deps.channels().get(identity.tenantId, params.channelId);
        await deps.channels().delete(identity.tenantId, params.channelId);
        await auditChannel(scope, logger, identity, 'channel-delete', channel);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'POST',
      ...at('/channels/:channelId/test', 'content:sync'),
      request: { params: channelIdParam },
      summary: "Tests a channel's connection (remote hello): {ok, remoteInstallationId, latencyMs, error?: {code, message}}",
      description:
        "Always 200 for an existing channel; a failure is ok: false with the SYNC_REMOTE_* code. A reachable remote refreshes the channel's remote installation id.",
      response: testAnswer,
      async handler({ identity, params }) {
        const channel = await deps.channels().withKey(identity.tenantId, params.channelId);
        const started = Date.now();
        try {
          const hello = await deps.client(channel).hello();
          if (hello.installationId !== channel.remoteInstallationId)
            await deps.channels().setRemoteInstallation(identity.tenantId, channel.channelId, hello.installationId);
          return { ok: true, remoteInstallationId: hello.installationId, latencyMs: Date.now() - started };
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return {
            ok: false,
            remoteInstallationId: channel.remoteInstallationId,
            latencyMs: Date.now() - started,
            error: { code: err.code, message: err.message },
          };
        }
      },
    }),
  ];
}

/** Plan (push or pull), push, pull and the jobs of both domains. */
function transferRoutes(): RouteDefinition[] {
  const apply = (domain: string, direction: string) =>
    applyRoute(common, {
      domain,
      path: `/api/content-sync/${direction}`,
      summary: `Applies a stored ${direction} plan: 200 with the outcome when inline, 202 with a jobId at or above 500 entities`,
      description:
        direction === 'push'
          ? 'The remote applies its plan (confirmed: the confirmation of a mirror plan is checked here); a remote failure is outcome rollback with error SYNC_REMOTE_APPLY_FAILED (or the SYNC_REMOTE_* code of the call), naming the remote code (e.g. PLAN_STALE). Errors: 404 PLAN_NOT_FOUND, 410 PLAN_EXPIRED, 409 CONFIRMATION_REQUIRED, 409 PLAN_STALE, 409 LOCK_CONTENTION, 400 PLAN_BLOCKED.'
          : 'The received package is applied here in one transaction. Errors: 404 PLAN_NOT_FOUND, 410 PLAN_EXPIRED, 409 CONFIRMATION_REQUIRED, 409 PLAN_STALE, 409 LOCK_CONTENTION, 400 PLAN_BLOCKED.',
    });

  return [
    planRoute(common, {
      summary:
        "Dry run of a push (this instance -> the channel's remote) or a pull (remote -> here) in mode merge (default) or mirror; stores and answers the plan",
      description:
        "Push: builds a package of the collections, uploads it (resumable chunks) and has the remote plan it; the plan mirrors the remote plan, followed by one `remote-apply` operation (count 0). Pull: downloads the remote's package (resumable) and plans it as a content import here. " +
        'Conflicts (an entry changed on both sides since the last sync) are warnings and skipped unless conflictStrategy is source. Default collections: those both instances have. Remote failures: 502/504 SYNC_REMOTE_*, a refused key 400 SYNC_REMOTE_AUTH_FAILED, an internal address 400 SYNC_URL_FORBIDDEN.',
      body: syncInputSchema.extend({ direction: z.enum(['push', 'pull']) }),
      input: ({ direction, ...input }) => ({ input, mode: input.mode, domain: direction === 'push' ? PUSH_DOMAIN : PULL_DOMAIN }),
    }),
    apply(PUSH_DOMAIN, 'push'),
    apply(PULL_DOMAIN, 'pull'),
    defineRoute({
      method: 'GET',
      ...at('/jobs', 'content:read'),
      request: { query: z.object({ jobId: z.string().min(1).max(100).optional() }) },
      summary: 'The push and pull apply jobs, newest first; ?jobId= narrows to one (404 DATA_JOB_NOT_FOUND)',
      response: jobsAnswerSchema,
      async handler({ scope, identity, query }) {
        if (query.jobId) {
          try {
            return { jobs: await scope.dataOps.jobs(PUSH_DOMAIN, identity, query.jobId) };
          } catch {
            return { jobs: await scope.dataOps.jobs(PULL_DOMAIN, identity, query.jobId) };
          }
        }
        const jobs: DataJobView[] = [
          ...(await scope.dataOps.jobs(PUSH_DOMAIN, identity)),
          ...(await scope.dataOps.jobs(PULL_DOMAIN, identity)),
        ];
        jobs.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
        return { jobs: jobs.slice(0, 100) };
      },
    }),
  ];
}

export function syncRoutes(deps: SyncDeps): RouteDefinition[] {
  return [...channelListRoutes(deps), ...channelRoutes(deps), ...transferRoutes()];
}
