import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import type { RouteDefinition } from '../../kernel/http/route-table.js';
import { assertCanManage } from './guards.js';
import type { SessionsService } from './sessions-service.js';
import type { TokensService } from './tokens-service.js';
import type { UsersService } from './users-service.js';

const userId = { params: z.object({ id: z.string().uuid() }) };

/** User administration (user:manage): list, block and delete; blocking or deleting ends every session at once. */
export const userAdminRoutes: RouteDefinition[] = [
  {
    method: 'GET', path: '/api/user/list', permission: 'user:manage', tags: ['user'],
    summary: 'Users of the tenant, newest first (search matches email and username)',
    request: { query: z.object({ page: z.coerce.number().int().min(1).default(1), limit: z.coerce.number().int().min(1).default(25).transform((n) => Math.min(n, 100)), search: z.string().max(100).optional() }) },
    handler: ({ query, identity, scope }) => (scope.users as UsersService).list(identity.tenantId, query),
  },
  {
    method: 'POST', path: '/api/user/:id/block', permission: 'user:manage', tags: ['user'],
    summary: 'Blocks or unblocks a user; blocking ends every session and disables their keys and tokens at once',
    request: { ...userId, body: z.object({ blocked: z.boolean() }) },
    async handler({ params, body, identity, scope }) {
      if (params.id === identity.userId && body.blocked) throw new ValidationError('You cannot block yourself');
      const users = scope.users as UsersService;
      const user = await users.findById(params.id);
      if (!user || user.tenant_id !== identity.tenantId) throw new NotFoundError('User not found');
      assertCanManage(identity, user.role);
      if (body.blocked && user.role === 'admin' && (await users.countActiveAdmins(identity.tenantId)) <= 1) throw new ConflictError('The last active admin cannot be blocked');
      await users.setBlocked(user.id, body.blocked);
      const revokedSessions = body.blocked ? await (scope.sessions as SessionsService).revokeAllForUser(user.id) : 0;
      return { _id: user.id, blocked: body.blocked, revokedSessions };
    },
  },
  {
    method: 'DELETE', path: '/api/user/:id', permission: 'user:manage', tags: ['user'],
    summary: 'Deletes a user with their sessions, API keys and website tokens',
    request: userId,
    async handler({ params, identity, scope }) {
      if (params.id === identity.userId) throw new ValidationError('You cannot delete yourself');
      const users = scope.users as UsersService;
      const user = await users.findById(params.id);
      if (!user || user.tenant_id !== identity.tenantId) throw new NotFoundError('User not found');
      assertCanManage(identity, user.role);
      if (user.role === 'admin' && !user.blocked && (await users.countActiveAdmins(identity.tenantId)) <= 1) throw new ConflictError('The last active admin cannot be deleted');
      const revokedSessions = await (scope.sessions as SessionsService).revokeAllForUser(user.id);
      await (scope.tokens as TokensService).deleteAllForUser(user.id);
      await users.delete(user.id);
      return { deleted: true, revokedSessions };
    },
  },
];
