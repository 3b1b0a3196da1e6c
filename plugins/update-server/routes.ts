import { createHash, timingSafeEqual } from 'node:crypto';
import semver from 'semver';
import { z } from 'zod';
import {
  ServiceUnavailableError,
  ValidationError,
  defineRoute,
  type RouteDefinition,
  type RouteRequestSchemas,
  type TypedRouteDefinition,
} from '../../kernel/sdk.js';
import { UPDATE_SIGNATURE_WINDOW_MS } from '../../lib/text/update-signature.js';
import { CheckRateLimitedError, OperatorTokenInvalidError, OperatorTokenRequiredError, SignatureExpiredError } from './errors.js';
import { hashIp, type ServerKeys } from './keys.js';
import type { UpdateServerOptions } from './options.js';
import { checkUpdateBodySchema, checkUpdateResponseSchema, registerBodySchema, updateCheckPayloadSchema } from './payload.js';
import type { UpdateServerStore } from './store.js';
import { advisoriesFor, type VersionSource } from './versions.js';

/** What boot opens; the routes read it per request (the kernel answers 503 until the plugin booted). */
export interface UpdateServerRuntime {
  store: UpdateServerStore;
  versions: VersionSource;
  keys: ServerKeys;
  now(): number;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Constant-time comparison of a bearer token with the operator token (digests, so lengths leak nothing). */
export function operatorTokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

const statRows = z.array(z.object({ value: z.string(), count: z.number().int() }));

type OpenRuntime = () => UpdateServerRuntime;

/** A route of the update server: public (installations and its operator are no users of this instance), tagged update-server. */
function serverRoute<S extends RouteRequestSchemas>(route: Omit<TypedRouteDefinition<S>, 'permission' | 'tags'>): RouteDefinition {
  return defineRoute<S>({ ...route, permission: 'public', tags: ['update-server'] });
}

/** POST /api/register: a new (or rotated) signing secret for an installation; `perHour` registrations per client IP. */
function registerRoute(perHour: number, open: OpenRuntime): RouteDefinition {
  return serverRoute({
    method: 'POST',
    path: '/api/register',
    summary: 'Register an installation (update check): answers its signing secret',
    description:
      'Answers `{secret}` (64 hex characters), the key of the HMAC-SHA256 signatures of /api/check-update. Registering the same installation_id again rotates the secret: the previous one then fails with 403 INVALID_SIGNATURE. The bare object of the spec, not the `{success, data}` envelope.',
    envelope: false,
    rateLimit: { points: perHour, durationSeconds: 3600 },
    request: { body: registerBodySchema },
    response: z.object({ secret: z.string().regex(/^[0-9a-f]{64}$/) }),
    async handler({ ctx, body }) {
      const r = open();
      const secret = await r.store.register(body.installation_id, r.now());
      ctx.status = 200;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { secret };
    },
  });
}

/** POST /api/check-update: the signed check, answered with the latest version and the advisories. */
function checkUpdateRoute(open: OpenRuntime): RouteDefinition {
  return serverRoute({
    method: 'POST',
    path: '/api/check-update',
    summary: 'A signed update check: answers the latest version and the advisories for the reported one',
    description:
      "Body `{payload, signature, timestamp}`: `signature` is the lower-case hex HMAC-SHA256, keyed with the registration secret, of `<timestamp>.<RFC 8785 canonical JSON of payload>`. 400 VALIDATION_ERROR for a payload that is not the spec's; 403 SIGNATURE_EXPIRED (timestamp more than 5 minutes off), UNKNOWN_INSTALLATION, INVALID_SIGNATURE, REPLAYED_REQUEST; 429 CHECK_RATE_LIMITED with Retry-After (one check per client IP per 12 hours). Answers the bare object `{latest_version, current_version, update_available, advisories}`.",
    envelope: false,
    request: { body: checkUpdateBodySchema },
    response: checkUpdateResponseSchema,
    async handler({ ctx, body }) {
      const r = open();
      const parsed = updateCheckPayloadSchema.safeParse(body.payload);
      if (!parsed.success) {
        const issues = parsed.error.issues.slice(0, 20).map((i) => ({ path: ['payload', ...i.path].join('.'), message: i.message }));
        throw new ValidationError('The payload does not match the update-check payload of the spec', issues);
      }
      const now = r.now();
      const skew = Math.abs(now - body.timestamp);
      if (skew > UPDATE_SIGNATURE_WINDOW_MS) throw new SignatureExpiredError(Math.round(skew / 1000));
      const outcome = await r.store.check({
        raw: body.payload,
        payload: parsed.data,
        signature: body.signature,
        timestamp: body.timestamp,
        ipHash: hashIp(r.keys.ipSalt, ctx.ip),
        now,
      });
      if (outcome.kind === 'limited') throw new CheckRateLimitedError(outcome.retryAfterSeconds);
      const info = await r.versions.current();
      const current = parsed.data.current_version;
      ctx.status = 200;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        latest_version: info.latest,
        current_version: current,
        update_available: semver.gt(info.latest, current),
        advisories: advisoriesFor(info, current).map((a) => ({
          id: a.id,
          severity: a.severity,
          affected: a.affected,
          fixed_in: a.fixed_in,
          summary: a.summary,
        })),
      };
    },
  });
}

/** GET /api/stats: counts for the operator (bearer `operatorToken`; none configured: every token is refused). */
function statsRoute(operatorToken: string | undefined, open: OpenRuntime): RouteDefinition {
  return serverRoute({
    method: 'GET',
    path: '/api/stats',
    summary: "The update server's statistics for its operator (counts only)",
    description:
      'Needs `Authorization: Bearer <UPDATE_SERVER_OPERATOR_TOKEN>` (401 OPERATOR_TOKEN_REQUIRED without it, 403 OPERATOR_TOKEN_INVALID for another token or when no token is configured). Installations that reported at least once (in the last `sinceDays` days), counted by version, database type and country; never ids, IPs or hashes.',
    request: { query: z.object({ sinceDays: z.coerce.number().int().min(1).max(3650).optional() }) },
    response: z.object({
      registered: z.number().int(),
      reporting: z.number().int(),
      byVersion: statRows,
      byDbType: statRows,
      byCountry: statRows,
    }),
    async handler({ ctx, query }) {
      const header = ctx.get('authorization');
      const match = /^Bearer\s+(\S{1,512})\s*$/i.exec(header);
      if (!match) throw new OperatorTokenRequiredError();
      if (!operatorToken) throw new OperatorTokenInvalidError(false);
      if (!operatorTokenMatches(match[1]!, operatorToken)) throw new OperatorTokenInvalidError(true);
      const r = open();
      ctx.set('Cache-Control', 'no-store');
      return r.store.stats(query.sinceDays === undefined ? undefined : r.now() - query.sinceDays * 86_400_000);
    },
  });
}

export function updateServerRoutes(options: UpdateServerOptions, runtime: () => UpdateServerRuntime | null): RouteDefinition[] {
  const open = (): UpdateServerRuntime => {
    const r = runtime();
    if (!r) throw new ServiceUnavailableError('The update server is starting; try again shortly');
    return r;
  };
  return [registerRoute(options.registerPerHour, open), checkUpdateRoute(open), statsRoute(options.operatorToken, open)];
}
