import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { componentInput, componentPatch, describeComponent } from './components-service.js';
import { assertSchemaTenant, fieldAnswer } from './routes-collections.js';
import { typesSource } from './types-ts.js';

const nameParam = { params: z.object({ name: z.string().min(1).max(64) }) };
const component = z.object({ name: z.string(), label: z.string(), fields: z.array(fieldAnswer) }).meta({ id: 'Component' });

/** Components (API decisions, "Content model v2"): content:read reads them, collections:manage writes them. */
export const componentRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/types.ts',
    permission: 'content:read',
    tags: ['collections'],
    envelope: false,
    summary: 'TypeScript types of every collection and component as the API answers them (text; populate-aware)',
    description:
      "`Post<'author'>` is a post read with populate=author: that field is the related entry (or null), the other relation and media fields ids. Save it as a .ts file next to your site's code.",
    request: {},
    handler: ({ ctx, scope }) => {
      ctx.set('Content-Type', 'text/plain; charset=utf-8');
      ctx.set('Content-Disposition', 'inline; filename="cms-types.ts"');
      ctx.body = typesSource(scope.collections.list(), scope.components.list());
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/components',
    permission: 'content:read',
    tags: ['components'],
    summary: 'The reusable components and their fields',
    request: {},
    response: z.array(component),
    handler: ({ scope }) => scope.components.list().map(describeComponent),
  }),
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/components',
    permission: 'collections:manage',
    tags: ['components'],
    status: 201,
    summary: 'Creates a component: a named field list that collections and other components use (collections:manage)',
    description: "The fields take the same types and rules as a collection's. 409 CONFLICT when the name is taken.",
    request: { body: componentInput },
    response: component,
    async handler({ body, identity, scope }) {
      assertSchemaTenant(identity, scope.config.multiTenant);
      return describeComponent(await scope.components.create(body));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/components/:name',
    permission: 'content:read',
    tags: ['components'],
    summary: 'One component',
    request: nameParam,
    response: component,
    handler: async ({ params, scope }) => describeComponent(await scope.components.get(params.name)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/components/:name',
    permission: 'collections:manage',
    tags: ['components'],
    summary: "Changes a component's label or fields (fields: the whole new list) (collections:manage)",
    request: { ...nameParam, body: componentPatch },
    response: component,
    async handler({ params, body, identity, scope }) {
      assertSchemaTenant(identity, scope.config.multiTenant);
      return describeComponent(await scope.components.update(params.name, body));
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/components/:name',
    permission: 'collections:manage',
    tags: ['components'],
    summary: 'Deletes a component (collections:manage); 409 CONFLICT while a collection or component uses it',
    request: nameParam,
    response: z.object({ deleted: z.literal(true) }),
    async handler({ params, identity, scope }) {
      assertSchemaTenant(identity, scope.config.multiTenant);
      await scope.components.remove(params.name);
      return { deleted: true as const };
    },
  }),
];
