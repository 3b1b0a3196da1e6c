import { z } from 'zod';
import { defineRoute, type RouteDefinition, type RouteRequestSchemas, type TypedRouteDefinition } from '../../kernel/sdk.js';
import { componentInput, componentPatch, componentPatchBody, describeComponent } from './components-service.js';
import { componentPlanSchema } from './component-schema-plan.js';
import { assertSchemaTenant, fieldAnswer } from './routes-collections.js';
import { typesSource } from './types-ts.js';

const nameParam = { params: z.object({ name: z.string().min(1).max(64) }) };
const component = z.object({ name: z.string(), label: z.string(), fields: z.array(fieldAnswer) }).meta({ id: 'Component' });

/**
 * A write of components: `collections:manage`, and (components being shared by every tenant, as schemas are)
 * only by the default tenant's admins when tenants are on.
 */
function write<S extends RouteRequestSchemas>(route: Omit<TypedRouteDefinition<S>, 'permission' | 'tags'>): RouteDefinition {
  return defineRoute<S>({
    ...route,
    permission: 'collections:manage',
    tags: ['components'],
    handler: (call) => {
      assertSchemaTenant(call.identity, call.scope.config.multiTenant);
      return route.handler(call);
    },
  });
}

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
      ctx.body = typesSource(scope.collections.listForRead(), scope.components.list());
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
  write({
    method: 'POST',
    idempotent: true,
    path: '/api/components',
    status: 201,
    summary: 'Creates a component: a named field list that collections and other components use (collections:manage)',
    description: "The fields take the same types and rules as a collection's. 409 CONFLICT when the name is taken.",
    request: { body: componentInput },
    response: component,
    handler: async ({ body, scope }) => describeComponent(await scope.components.create(body)),
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
  write({
    method: 'PATCH',
    path: '/api/components/:name',
    summary: "Changes a component's label or fields (fields: the whole new list) (collections:manage)",
    description:
      'Fields kept by name keep their values in every entry holding the component (directly, inside another component, as a block); new ones are added; missing ones are dropped from the stored values. ' +
      "A kept field may change its type where its values convert (as a collection schema's); other type or component changes are 400. " +
      'A change that would lose stored values (a dropped field that holds some, values that do not fit the new type, blocks of a type a blocks field no longer allows) answers 409 SCHEMA_CHANGE_LOSES_DATA with the plan (POST .../schema/plan) until its planHash is sent back in the body. ' +
      'The entries holding the component are then rewritten (their revisions are not).',
    request: { ...nameParam, body: componentPatchBody },
    response: component,
    handler: async ({ params, body, scope }) => describeComponent(await scope.components.change(params.name, body)),
  }),
  write({
    method: 'POST',
    path: '/api/components/:name/schema/plan',
    summary: 'What a component change (the PATCH body) would do to the values stored in entries, changing nothing (collections:manage)',
    description:
      'Walks every entry (of every tenant) of every collection that may hold the component, directly, inside another component or as a block. Per field: added, kept, converted (from, to, how many values do not fit and become null, up to 20 of them) or dropped (every value lost); values counts the instances holding one. A blocks field whose allowed components shrink lists droppedBlocks (counted in lost). When losesData, the PATCH needs planHash.',
    request: { ...nameParam, body: componentPatch },
    response: componentPlanSchema,
    handler: async ({ params, body, scope }) => scope.components.planChange(params.name, body),
  }),
  write({
    method: 'DELETE',
    path: '/api/components/:name',
    summary: 'Deletes a component (collections:manage); 409 CONFLICT while a collection or component uses it',
    request: nameParam,
    response: z.object({ deleted: z.literal(true) }),
    handler: async ({ params, scope }) => {
      await scope.components.remove(params.name);
      return { deleted: true as const };
    },
  }),
];
