import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { toPublicPasskey } from './passkeys-service.js';
import { passkeySchema } from './schemas.js';
import { sessionUser } from './session-user.js';

const byId = { params: z.object({ id: z.string().uuid() }) };

/** The caller's own passkeys: list, rename, delete. Another user's passkey is PASSKEY_NOT_FOUND. */
export const manageRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/auth/passkeys',
    permission: 'authenticated',
    tags: ['auth'],
    summary: "The caller's passkeys, oldest first (experimental)",
    request: {},
    response: z.object({ passkeys: z.array(passkeySchema) }),
    async handler(route) {
      const user = await sessionUser(route);
      return { passkeys: (await route.scope.passkeys.listForUser(user.id)).map(toPublicPasskey) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/auth/passkeys/:id',
    permission: 'authenticated',
    tags: ['auth'],
    summary: "Renames one of the caller's passkeys (experimental)",
    request: { ...byId, body: z.object({ name: z.string().trim().min(1).max(191) }) },
    response: z.object({ passkey: passkeySchema }),
    async handler(route) {
      const user = await sessionUser(route);
      return { passkey: toPublicPasskey(await route.scope.passkeys.rename(route.params.id, user.id, route.body.name)) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/auth/passkeys/:id',
    permission: 'authenticated',
    tags: ['auth'],
    summary: "Deletes one of the caller's passkeys; it cannot sign in any more (experimental)",
    request: byId,
    response: z.object({ deleted: z.literal(true) }),
    async handler(route) {
      const user = await sessionUser(route);
      await route.scope.passkeys.remove(route.params.id, user.id);
      return { deleted: true as const };
    },
  }),
];
