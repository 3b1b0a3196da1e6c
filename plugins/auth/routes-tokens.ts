import { z } from 'zod';
import { defineRoute, type Identity, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import { requireSession, requireSudo } from './guards.js';
import { auditAuth } from './audit-events.js';
import type { RevokedBearer, TokensService } from './tokens-service.js';
import { keyScopeSchema } from './key-scope.js';

const idParam = { params: z.object({ id: z.string().uuid() }) };
const expiresAt = z.string().datetime({ offset: true }).optional();
/** One listed API key or website token: never its secret. */
const listed = {
  _id: z.string(),
  name: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
};

/** The two kinds of bearer credential: their audit target type and the name entries give them. */
type BearerType = RevokedBearer['kind'];
const LABEL: Record<BearerType, string> = { 'api-key': 'API key', 'website-token': 'Website token' };

/**
 * A create handler: sudo mode, the credential (permissions checked against the known ones), then the
 * audit entry `auth.<type>.created` that `entry` words (never with the secret).
 */
async function createBearer<T extends { _id: string }>(
  route: RouteContext,
  type: BearerType,
  create: (tokens: TokensService, known: (permission: string) => boolean) => Promise<T>,
  entry: (created: T) => { message: string; details: Record<string, unknown> },
): Promise<T> {
  await requireSudo(route);
  const { scope } = route;
  const created = await create(scope.tokens, (p) => scope.registries.permissions.has(p));
  await auditAuth(route.ctx, { action: `auth.${type}.created`, level: 'medium', target: { type, id: created._id }, ...entry(created) });
  return created;
}

/** GET of the caller's credentials of one kind (admins: the tenant's), without secrets; sessions only. */
function listRoute(
  path: string,
  summary: string,
  permissions: z.ZodType,
  list: (tokens: TokensService, identity: Identity) => unknown,
  extra: z.ZodRawShape = {},
) {
  return defineRoute({
    method: 'GET',
    path,
    permission: 'authenticated',
    tags: ['tokens'],
    summary,
    request: {},
    response: z.array(z.object({ ...listed, permissions, ...extra })),
    handler: ({ identity, scope }) => {
      requireSession(identity);
      return list(scope.tokens, identity);
    },
  });
}

/** DELETE <path>/:id: revokes one credential at once (sessions only), audited as `auth.<type>.revoked`. */
function revokeRoute(
  path: string,
  type: BearerType,
  revoke: (tokens: TokensService, identity: Identity, id: string) => Promise<RevokedBearer>,
) {
  return defineRoute({
    method: 'DELETE',
    path: `${path}/:id`,
    permission: 'authenticated',
    tags: ['tokens'],
    summary: `Revokes ${type === 'api-key' ? 'an API key' : 'a website token'} at once`,
    request: idParam,
    handler: async ({ ctx, params, identity, scope }) => {
      requireSession(identity);
      const revoked = await revoke(scope.tokens, identity, params.id);
      await auditAuth(ctx, {
        action: `auth.${type}.revoked`,
        level: 'medium',
        message: `${LABEL[type]} "${revoked.name}" revoked`,
        target: { type, id: revoked.id },
        details: { name: revoked.name, ownerId: revoked.userId },
      });
      return { revoked: true };
    },
  });
}

/** API keys and website tokens: the raw value only in the create response. */
export const tokenRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/api-keys',
    permission: 'authenticated',
    status: 201,
    tags: ['tokens'],
    summary: 'Creates an API key (sck_…) with permissions you hold; the key is shown only here',
    description:
      'Sudo mode: needs a session that signed in with its password less than CMS_REAUTH_WINDOW_SECONDS ago, or X-Reauth-Proof (403 REAUTH_REQUIRED); API keys and website tokens cannot create keys (403 FORBIDDEN).',
    request: {
      body: z.object({
        name: z.string().min(1).max(191),
        permissions: z.array(z.string()).min(1).max(50),
        expiresAt,
        scope: keyScopeSchema,
      }),
    },
    response: z.object({
      _id: z.string(),
      name: z.string(),
      key: z.string(),
      permissions: z.array(z.string()),
      scope: z.array(z.object({ collection: z.string(), actions: z.array(z.string()) })).nullable(),
      expiresAt: z.string().nullable(),
    }),
    handler: (route) =>
      createBearer(
        route,
        'api-key',
        (tokens, known) => tokens.createApiKey(route.identity, route.body, known),
        (c) => ({
          message: `API key "${c.name}" created with ${c.permissions.join(', ')}`,
          details: { name: c.name, permissions: c.permissions, scope: c.scope, expiresAt: c.expiresAt },
        }),
      ),
  }),
  listRoute(
    '/api/api-keys',
    "Your API keys (admins: the tenant's), without secrets, with their scope (null: every collection their permissions allow)",
    z.array(z.string()),
    (tokens, identity) => tokens.listApiKeys(identity),
    { scope: z.array(z.object({ collection: z.string(), actions: z.array(z.string()) })).nullable() },
  ),
  revokeRoute('/api/api-keys', 'api-key', (tokens, identity, id) => tokens.revokeApiKey(identity, id)),
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/website-tokens',
    permission: 'authenticated',
    status: 201,
    tags: ['tokens'],
    summary: 'Creates a website token (bearer, acting as you, narrowed to `permissions` when given); the token is shown only here',
    description:
      'Sudo mode: needs a session that signed in with its password less than CMS_REAUTH_WINDOW_SECONDS ago, or X-Reauth-Proof (403 REAUTH_REQUIRED). `permissions` narrows the token to a subset of yours (one you lack or an unknown one: 400 VALIDATION_ERROR); without it the token carries all of your permissions.',
    request: {
      body: z.object({ name: z.string().min(1).max(191), expiresAt, permissions: z.array(z.string().max(128)).min(1).max(50).optional() }),
    },
    response: z.object({
      _id: z.string(),
      name: z.string(),
      token: z.string(),
      expiresAt: z.string().nullable(),
      permissions: z.array(z.string()).nullable(),
    }),
    handler: (route) =>
      createBearer(
        route,
        'website-token',
        (tokens, known) => tokens.createWebsiteToken(route.identity, route.body, known),
        (c) => ({
          message: `Website token "${c.name}" created`,
          details: { name: c.name, expiresAt: c.expiresAt, permissions: c.permissions },
        }),
      ),
  }),
  listRoute(
    '/api/website-tokens',
    "Your website tokens (admins: the tenant's), without secrets",
    z.array(z.string()).nullable(),
    (tokens, identity) => tokens.listWebsiteTokens(identity),
  ),
  revokeRoute('/api/website-tokens', 'website-token', (tokens, identity, id) => tokens.revokeWebsiteToken(identity, id)),
];
