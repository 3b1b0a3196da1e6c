import { z } from 'zod';
import { AuthenticationRequiredError, ForbiddenError, type Identity, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';

/** A person signed in with a session (API keys and website tokens do not manage sign-in methods). */
function sessionUser(identity: Identity): string {
  if (typeof identity.meta?.sessionHash !== 'string')
    throw new ForbiddenError('This needs a signed-in session; API keys and website tokens cannot manage sign-in methods');
  if (!identity.userId) throw new AuthenticationRequiredError();
  return identity.userId;
}

const linkedIdentity = z.object({
  _id: z.string(),
  provider: z.string(),
  email: z.string().nullable(),
  createdAt: z.string(),
  lastLoginAt: z.string(),
});

export const identityRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/auth/oidc/identities',
    permission: 'authenticated',
    tags: ['auth'],
    summary: 'Your identity-provider identities linked to this account',
    request: {},
    response: z.array(linkedIdentity),
    handler: ({ identity, scope }) => scope.oidcLinks.list(sessionUser(identity)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/auth/oidc/identities/:id',
    permission: 'authenticated',
    tags: ['auth'],
    summary: 'Unlinks one of your provider identities (it no longer signs you in)',
    request: { params: z.object({ id: z.string().uuid() }) },
    response: z.object({ unlinked: z.literal(true) }),
    async handler({ identity, params, scope }) {
      await scope.oidcLinks.unlink(sessionUser(identity), params.id);
      return { unlinked: true };
    },
  }),
];
