/**
 * Public access per collection: the guest role (callers without a session or token) may read a
 * collection's published entries over REST and GraphQL once an admin grants `content:read:<collection>`
 * to it. The grant lives in the guest role's permissions (the auth plugin's users service, reached
 * through the container), so roles, configuration sync and backups carry it like any other permission.
 */
import { z } from 'zod';
import { ServiceUnavailableError, defineRoute, type RouteDefinition, optional } from '../../kernel/sdk.js';
import type {} from '../auth/public.js';

const nameParam = { params: z.object({ collection: z.string().min(1).max(64) }) };
const answer = z
  .object({
    collection: z.string(),
    public: z.boolean().meta({ description: 'Guests read the published entries of this collection' }),
    guestReadsAll: z.boolean().meta({ description: 'The guest role holds content:read itself: every collection is public' }),
    listPath: z.string().meta({ description: 'Where guests read the list, e.g. /api/collections/posts' }),
  })
  .meta({ id: 'CollectionPublicAccess' });

/** The permission that makes one collection readable by guests. */
export const publicReadOf = (collection: string) => `content:read:${collection}`;

export const publicAccessRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/content/public-access',
    permission: 'content:read',
    tags: ['collections'],
    summary: 'Which collections callers without a session may read (their published entries)',
    request: {},
    response: z
      .object({
        guestReadsAll: z.boolean().meta({ description: 'The guest role holds content:read itself: every collection is public' }),
        collections: z.array(z.string()).meta({ description: 'Existing collections granted to guests one by one' }),
      })
      .meta({ id: 'PublicAccessOverview' }),
    async handler({ identity, scope }) {
      const users = optional(scope, 'users');
      const granted = new Set(users ? await users.permissionsOf('guest', identity.tenantId) : []);
      const names = (await scope.content.collections.list()).map((c) => c.name);
      return { guestReadsAll: granted.has('content:read'), collections: names.filter((n) => granted.has(publicReadOf(n))) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/collections/:collection/public-access',
    permission: 'content:read',
    tags: ['collections'],
    summary: 'Whether callers without a session may read the published entries of this collection',
    request: nameParam,
    response: answer,
    async handler({ params, identity, scope }) {
      const c = await scope.collections.get(params.collection);
      const users = optional(scope, 'users');
      const granted = users ? await users.permissionsOf('guest', identity.tenantId) : [];
      return {
        collection: c.name,
        public: granted.includes(publicReadOf(c.name)),
        guestReadsAll: granted.includes('content:read'),
        listPath: `/api/collections/${c.name}`,
      };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/collections/:collection/public-access',
    permission: 'collections:manage',
    tags: ['collections'],
    summary: 'Lets callers without a session read the published entries of this collection (REST and GraphQL), or stops it',
    description:
      "Grants or withdraws content:read:<collection> of the guest role of the caller's tenant; every instance applies it to the next request. Drafts and archived entries stay private; writing always needs a session or key.",
    request: { ...nameParam, body: z.object({ public: z.boolean() }) },
    response: answer,
    async handler({ params, body, identity, scope }) {
      const c = await scope.collections.get(params.collection);
      const users = optional(scope, 'users');
      if (!users) throw new ServiceUnavailableError('Public access needs the auth plugin, which is not loaded');
      const granted = await users.setGuestGrant(identity.tenantId, publicReadOf(c.name), body.public);
      scope.audit.record({
        domain: 'content',
        operation: 'public-access',
        actor: { userId: identity.userId ?? null, tenantId: identity.tenantId },
        outcome: 'success',
        level: 'medium',
        action: body.public ? 'collection.public-access.granted' : 'collection.public-access.withdrawn',
        message: body.public
          ? `Guests may now read the published entries of '${c.name}'`
          : `Guests may no longer read the entries of '${c.name}'`,
        details: { collection: c.name },
      });
      return {
        collection: c.name,
        public: body.public,
        guestReadsAll: granted.includes('content:read'),
        listPath: `/api/collections/${c.name}`,
      };
    },
  }),
];
