import { z } from 'zod';
import { ConflictError, ForbiddenError, isAdmin, type Identity, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import type { TenantsService } from './tenants-service.js';

/** Tenants are managed by the admins of the default tenant (the operator's), and only with MULTI_TENANT on. */
function operatorOnly(identity: Identity, tenants: TenantsService): void {
  if (!tenants.multiTenant) throw new ConflictError('MULTI_TENANT is off: everything lives in the default tenant');
  if (!isAdmin(identity) || identity.tenantId !== 'default') throw new ForbiddenError('Only admins of the default tenant manage tenants');
}

export const tenantRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    path: '/api/tenants',
    permission: 'manage:system',
    tags: ['tenants'],
    status: 201,
    summary: 'Creates a tenant with its hostnames, its built-in roles and its first admin',
    request: {
      body: z.object({
        id: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/),
        name: z.string().min(1).max(191),
        hostnames: z
          .array(
            z
              .string()
              .regex(/^[a-z0-9.-]+$/i)
              .max(253),
          )
          .min(1)
          .max(20),
        admin: z.object({
          email: z.string().email().max(191),
          password: z.string().min(8).max(1024),
          username: z.string().min(1).max(191).optional(),
        }),
      }),
    },
    async handler({ body, identity, scope }) {
      const tenants = scope.tenants;
      operatorOnly(identity, tenants);
      const tenant = await tenants.create(body);
      const admin = await scope.users.create({ ...body.admin, role: 'admin', tenantId: tenant.id });
      return { ...tenant, admin };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/tenants',
    permission: 'manage:system',
    tags: ['tenants'],
    summary: 'The tenants and their hostnames',
    request: {},
    handler: ({ identity, scope }) => {
      operatorOnly(identity, scope.tenants);
      return scope.tenants.list();
    },
  }),
];
