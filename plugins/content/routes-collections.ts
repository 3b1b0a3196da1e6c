import { z } from 'zod';
import { ForbiddenError, type Identity, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { collectionInput, collectionPatch } from './collection-schema.js';
import { describeCollection } from './collections-service.js';
import { COMMERCE_PRESET } from './presets/commerce.js';
import { SchemaChangeLosesDataError, schemaPlanSchema } from './schema-plan.js';

const nameParam = { params: z.object({ collection: z.string().min(1).max(64) }) };

/** A field as answers declare it (collections and components). */
/** PATCH .../schema: the new schema, and the plan's hash when the change loses values (schema-plan.ts). */
const schemaPatchBody = collectionPatch.extend({
  planHash: z.string().max(64).optional().describe('The planHash of POST .../schema/plan: confirms a change that loses stored values'),
});

export const fieldAnswer = z.object({
  name: z.string(),
  type: z.string(),
  label: z.string().optional(),
  required: z.boolean().optional(),
  unique: z.boolean().optional(),
  indexed: z.boolean().optional(),
  default: z.unknown().optional(),
  options: z.array(z.string()).optional(),
  collection: z.string().optional(),
  cardinality: z.enum(['one', 'many']).optional(),
  inverseName: z.string().optional(),
  multiple: z.boolean().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  pattern: z.string().optional(),
  component: z.string().optional(),
  repeatable: z.boolean().optional(),
  components: z.array(z.string()).optional(),
});
const collection = z
  .object({
    name: z.string(),
    label: z.string(),
    singular: z.string(),
    fields: z.array(fieldAnswer),
    version: z.number(),
    singleton: z.literal(true).optional().describe('Present on singletons: one entry, at /api/collections/{collection}/single'),
    previewUrl: z
      .string()
      .optional()
      .describe("The site's page of an entry, for the admin UI's live preview: {id}, {slug}, {locale} and {token} are filled in"),
    drafts: z
      .literal(true)
      .optional()
      .describe('Present when entries have working drafts (GET|PUT|DELETE .../{id}/draft, POST .../{id}/draft/publish)'),
    search: z
      .object({ fields: z.array(z.string()) })
      .optional()
      .describe('Present when set: the fields full-text search looks in (else every text-like field; docs/features/search.md)'),
  })
  .meta({ id: 'Collection' });

/** Schemas (and components) are shared by every tenant: with tenants on, only the default tenant's admins change them. */
export function assertSchemaTenant(identity: Identity, multiTenant: boolean): void {
  if (multiTenant && identity.tenantId !== 'default')
    throw new ForbiddenError('Collection schemas are shared by all tenants; only the default tenant changes them');
}

export const collectionRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/collections',
    permission: 'content:read',
    tags: ['collections'],
    summary: 'The collections and their fields',
    request: {},
    response: z.array(collection),
    handler: ({ scope }) => scope.collections.list().map(describeCollection),
  }),
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/collections',
    permission: 'collections:manage',
    tags: ['collections'],
    status: 201,
    summary: 'Creates a collection and its table (collections:manage)',
    description:
      'Field types: text (at most 255 characters), richtext (HTML, sanitised on every write: see the README), markdown (Markdown source, stored as sent), number, boolean, date (ISO 8601), select (options; `multiple: true` makes the value an array of them), media (a media id), relation (an entry id of `collection`; with `cardinality` many an ordered array of them; `inverseName` adds a read-only field of that name to the target listing the entries pointing at it), json, email, url (http or https), color (#rrggbb). A field may be required, unique, indexed (not richtext, markdown, json or a multiple select) and have a default; `min`/`max` bound a number, the length of text, email and url, and the items of a multiple select or a many-relation (inclusive); `pattern` is a regular expression a text value must match. Values outside them: 400 VALIDATION_ERROR naming the field. singular defaults to the name without a trailing s. singleton: true makes a collection of one entry per tenant (GET|PUT /api/collections/{collection}/single). 409 COLLECTION_EXISTS.',
    request: { body: collectionInput },
    response: collection,
    async handler({ body, identity, scope }) {
      assertSchemaTenant(identity, scope.config.multiTenant);
      return describeCollection(await scope.collections.create(body));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/collections/presets/commerce',
    permission: 'collections:manage',
    tags: ['collections'],
    status: 201,
    summary: "Installs the bundled commerce preset: the products and orders collections (the dashboard's commerce widgets read them)",
    description: 'Creates whichever of products and orders does not exist yet; 200 with created: [] when both exist.',
    request: {},
    response: z.object({ created: z.array(z.string()), collections: z.array(collection) }),
    async handler({ ctx, identity, scope }) {
      assertSchemaTenant(identity, scope.config.multiTenant);
      const service = scope.collections;
      const created: string[] = [];
      for (const def of COMMERCE_PRESET) {
        if (service.list().some((c) => c.name === def.name)) continue;
        await service.create(def);
        created.push(def.name);
      }
      if (!created.length) ctx.status = 200;
      return {
        created,
        collections: service
          .list()
          .filter((c) => COMMERCE_PRESET.some((p) => p.name === c.name))
          .map(describeCollection),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/collections/:collection/schema',
    permission: 'content:read',
    tags: ['collections'],
    summary: "One collection's schema",
    request: nameParam,
    response: collection,
    handler: async ({ params, scope }) => describeCollection(await scope.collections.get(params.collection)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/collections/:collection/schema',
    permission: 'collections:manage',
    tags: ['collections'],
    summary: "Changes a collection's label, singular or fields; the table is altered through the migration ledger (collections:manage)",
    description:
      'fields is the whole new list: fields kept by name keep their data, new ones are added, missing ones are dropped with their data. ' +
      'A kept field may change its type where its values convert (text, email, url, color and single select into each other; number and boolean into those; those into number and markdown; a select to a multiple one; a one-relation to a many-relation of the same target); other type, target or component changes are 400. ' +
      'A change that would lose stored values (a dropped field that holds some, values that do not fit the new type) answers 409 SCHEMA_CHANGE_LOSES_DATA with the plan (POST .../schema/plan) until its planHash is sent back in the body. ' +
      'Making a field unique while entries share a value answers 409 CONFLICT; a concurrent schema change answers 409.',
    request: { ...nameParam, body: schemaPatchBody },
    response: collection,
    async handler({ params, body, identity, scope }) {
      assertSchemaTenant(identity, scope.config.multiTenant);
      const { planHash, ...patch } = body;
      const plan = await scope.collections.planChange(params.collection, patch);
      if (plan.losesData && planHash !== plan.planHash) throw new SchemaChangeLosesDataError(plan);
      return describeCollection(await scope.collections.update(params.collection, patch));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/collections/:collection/schema/plan',
    permission: 'collections:manage',
    tags: ['collections'],
    summary: 'What a schema change (the PATCH body) would do to the stored values, changing nothing',
    description:
      'Per field: added, kept, converted (from, to, how many values do not fit and are lost, up to 20 of them) or dropped (every value lost), counted over the entries of every tenant (a schema is shared). When losesData, the PATCH needs planHash.',
    request: { ...nameParam, body: collectionPatch },
    response: schemaPlanSchema,
    async handler({ params, body, identity, scope }) {
      assertSchemaTenant(identity, scope.config.multiTenant);
      return scope.collections.planChange(params.collection, body);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/collections/:collection/schema',
    permission: 'collections:manage',
    tags: ['collections'],
    summary: 'Drops a collection with its table, entries and revisions (collections:manage); 409 while other collections relate to it',
    request: nameParam,
    response: z.object({ deleted: z.literal(true) }),
    async handler({ params, identity, scope }) {
      assertSchemaTenant(identity, scope.config.multiTenant);
      await scope.collections.remove(params.collection);
      return { deleted: true };
    },
  }),
];
