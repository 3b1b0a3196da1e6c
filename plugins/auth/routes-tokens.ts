import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { requireSession, requireSudo } from './guards.js';
import { auditAuth } from './audit-events.js';

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
    request: { body: z.object({ name: z.string().min(1).max(191), permissions: z.array(z.string()).min(1).max(50), expiresAt }) },
    response: z.object({
      _id: z.string(),
      name: z.string(),
      key: z.string(),
      permissions: z.array(z.string()),
      expiresAt: z.string().nullable(),
    }),
    handler: async (route) => {
      const { ctx, body, identity, scope } = route;
      await requireSudo(route);
      const created = await scope.tokens.createApiKey(identity, body, (p) => scope.registries.permissions.has(p));
      await auditAuth(ctx, {
        action: 'auth.api-key.created',
        level: 'medium',
        message: `API key "${created.name}" created with ${created.permissions.join(', ')}`,
        target: { type: 'api-key', id: created._id },
        details: { name: created.name, permissions: created.permissions, expiresAt: created.expiresAt },
      });
      return created;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/api-keys',
    permission: 'authenticated',
    tags: ['tokens'],
    summary: "Your API keys (admins: the tenant's), without secrets",
    request: {},
    response: z.array(z.object({ ...listed, permissions: z.array(z.string()) })),
    handler: ({ identity, scope }) => {
      requireSession(identity);
      return scope.tokens.listApiKeys(identity);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/api-keys/:id',
    permission: 'authenticated',
    tags: ['tokens'],
    summary: 'Revokes an API key at once',
    request: idParam,
    handler: async ({ ctx, params, identity, scope }) => {
      requireSession(identity);
      const revoked = await scope.tokens.revokeApiKey(identity, params.id);
      await auditAuth(ctx, {
        action: 'auth.api-key.revoked',
        level: 'medium',
        message: `API key "${revoked.name}" revoked`,
        target: { type: 'api-key', id: revoked.id },
        details: { name: revoked.name, ownerId: revoked.userId },
      });
      return { revoked: true };
    },
  }),
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
    handler: async (route) => {
      const { ctx, body, identity, scope } = route;
      await requireSudo(route);
      const created = await scope.tokens.createWebsiteToken(identity, body, (p) => scope.registries.permissions.has(p));
      await auditAuth(ctx, {
        action: 'auth.website-token.created',
        level: 'medium',
        message: `Website token "${created.name}" created`,
        target: { type: 'website-token', id: created._id },
        details: { name: created.name, expiresAt: created.expiresAt, permissions: created.permissions },
      });
      return created;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/website-tokens',
    permission: 'authenticated',
    tags: ['tokens'],
    summary: "Your website tokens (admins: the tenant's), without secrets",
    request: {},
    response: z.array(z.object({ ...listed, permissions: z.array(z.string()).nullable() })),
    handler: ({ identity, scope }) => {
      requireSession(identity);
      return scope.tokens.listWebsiteTokens(identity);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/website-tokens/:id',
    permission: 'authenticated',
    tags: ['tokens'],
    summary: 'Revokes a website token at once',
    request: idParam,
    handler: async ({ ctx, params, identity, scope }) => {
      requireSession(identity);
      const revoked = await scope.tokens.revokeWebsiteToken(identity, params.id);
      await auditAuth(ctx, {
        action: 'auth.website-token.revoked',
        level: 'medium',
        message: `Website token "${revoked.name}" revoked`,
        target: { type: 'website-token', id: revoked.id },
        details: { name: revoked.name, ownerId: revoked.userId },
      });
      return { revoked: true };
    },
  }),
];
