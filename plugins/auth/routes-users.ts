import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { listLimit } from '../../lib/http/list-limit.js';
import { assertCanGrant, assertCanManage } from './guards.js';
import { auditAuth, userTarget, who } from './audit-events.js';

const userId = { params: z.object({ id: z.string().uuid() }) };

/** User administration (user:manage): list, block and delete; blocking or deleting ends every session at once. */
export const userAdminRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/user/list',
    permission: 'user:manage',
    tags: ['user'],
    summary: 'Users of the tenant, newest first (search matches email and username)',
    request: {
      query: z.object({
        page: z.coerce.number().int().min(1).default(1),
        limit: listLimit(),
        search: z.string().max(100).optional(),
      }),
    },
    handler: ({ query, identity, scope }) => scope.users.list(identity.tenantId, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/user/roles',
    permission: 'user:manage',
    tags: ['user'],
    summary: "The tenant's roles with their permissions (what create-user, invitations and role changes accept)",
    request: {},
    response: z.array(z.object({ name: z.string(), description: z.string(), permissions: z.array(z.string()) })),
    handler: ({ identity, scope }) => scope.users.roles(identity.tenantId),
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/user/:id/role',
    permission: 'user:manage',
    tags: ['user'],
    summary: "Changes a user's role; their sessions see it on the next request",
    description:
      'Nobody grants a role with permissions they lack, only admins change an admin, and the last active admin keeps the role (409 CONFLICT). An unknown role is 400.',
    request: { ...userId, body: z.object({ role: z.string().min(1).max(64) }) },
    response: z.object({ _id: z.string(), role: z.string() }),
    async handler({ ctx, params, body, identity, scope }) {
      const users = scope.users;
      const user = await users.findById(params.id);
      if (!user || user.tenant_id !== identity.tenantId) throw new NotFoundError('User not found');
      const known = (await users.roles(identity.tenantId)).find((r) => r.name === body.role);
      if (!known) throw new ValidationError(`Unknown role '${body.role}'`, [{ path: 'body.role', message: 'not a role of this tenant' }]);
      assertCanManage(identity, user.role);
      assertCanGrant(identity, body.role, known.permissions);
      if (user.role === body.role) return { _id: user.id, role: user.role };
      if (user.role === 'admin' && !user.blocked && (await users.countActiveAdmins(identity.tenantId)) <= 1)
        throw new ConflictError('The last active admin keeps the admin role');
      await users.setRole(user.id, body.role);
      await scope.sessions.forgetUser(user.id);
      await auditAuth(ctx, {
        action: 'auth.user.role-changed',
        level: body.role === 'admin' || user.role === 'admin' ? 'high' : 'medium',
        message: `Role of ${who(user)} changed from ${user.role} to ${body.role}`,
        target: userTarget(user),
        details: { from: user.role, to: body.role },
      });
      return { _id: user.id, role: body.role };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/user/:id/block',
    permission: 'user:manage',
    tags: ['user'],
    summary: 'Blocks or unblocks a user; blocking ends every session and disables their keys and tokens at once',
    request: { ...userId, body: z.object({ blocked: z.boolean() }) },
    async handler({ ctx, params, body, identity, scope }) {
      if (params.id === identity.userId && body.blocked) throw new ValidationError('You cannot block yourself');
      const users = scope.users;
      const user = await users.findById(params.id);
      if (!user || user.tenant_id !== identity.tenantId) throw new NotFoundError('User not found');
      assertCanManage(identity, user.role);
      if (body.blocked && user.role === 'admin' && (await users.countActiveAdmins(identity.tenantId)) <= 1)
        throw new ConflictError('The last active admin cannot be blocked');
      await users.setBlocked(user.id, body.blocked);
      const revokedSessions = body.blocked ? await scope.sessions.revokeAllForUser(user.id) : 0;
      await auditAuth(ctx, {
        action: body.blocked ? 'auth.user.blocked' : 'auth.user.unblocked',
        level: body.blocked ? 'high' : 'medium',
        message: body.blocked
          ? `${who(user)} blocked; ${revokedSessions} session(s) ended, keys and tokens disabled`
          : `${who(user)} unblocked`,
        target: userTarget(user),
        details: { revokedSessions },
      });
      return { _id: user.id, blocked: body.blocked, revokedSessions };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/user/:id',
    permission: 'user:manage',
    tags: ['user'],
    summary: 'Deletes a user with their sessions, API keys and website tokens',
    request: userId,
    async handler({ ctx, params, identity, scope }) {
      if (params.id === identity.userId) throw new ValidationError('You cannot delete yourself');
      const users = scope.users;
      const user = await users.findById(params.id);
      if (!user || user.tenant_id !== identity.tenantId) throw new NotFoundError('User not found');
      assertCanManage(identity, user.role);
      if (user.role === 'admin' && !user.blocked && (await users.countActiveAdmins(identity.tenantId)) <= 1)
        throw new ConflictError('The last active admin cannot be deleted');
      const revokedSessions = await scope.sessions.revokeAllForUser(user.id);
      await scope.tokens.deleteAllForUser(user.id);
      await users.delete(user.id);
      await auditAuth(ctx, {
        action: 'auth.user.deleted',
        level: 'high',
        message: `User ${who(user)} (${user.role}) deleted with their sessions, keys and tokens`,
        target: userTarget(user),
        details: { role: user.role, revokedSessions },
      });
      return { deleted: true, revokedSessions };
    },
  }),
];
