import { z } from 'zod';
import { SerialisedEnvelope, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { STATUSES, listQuerySchema } from './list-query.js';
import { fieldsParam } from './field-selection.js';
import { populateParam } from './populate.js';

const collectionParam = z.object({ collection: z.string().min(1).max(64) });
const entryParams = { params: collectionParam.extend({ entryId: z.string().uuid() }) };
export const localeParam = z
  .string()
  .max(64)
  .optional()
  .describe("A locale's code (GET /api/locales); default: the default locale. Unknown: 400 VALIDATION_ERROR");
const localeQuery = { query: z.object({ locale: localeParam }) };
const entryBody = z
  .record(z.string(), z.unknown())
  .describe("The collection's fields, plus optional slug and status (draft, published, archived)");

const entry = z
  .object({
    _id: z.string(),
    slug: z.string(),
    status: z.enum(STATUSES),
    syncId: z.string(),
    version: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
    createdBy: z.string().nullable(),
    updatedBy: z.string().nullable(),
    _stage: z
      .string()
      .optional()
      .describe(
        "The entry's review stage, for collections in a workflow, answered to callers who may write the collection (docs/features/review-stages.md)",
      ),
  })
  .catchall(z.unknown())
  .meta({ id: 'Entry' });

/** Static paths (batch, status, revisions) come before /:entryId: the first declared match wins. */
export const entryRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/collections/:collection/batch',
    permission: 'content:write',
    permissionScope: 'collection',
    tags: ['entries'],
    status: 201,
    summary: 'Creates up to 100 entries at once, all or nothing; a problem names its entry (body.entries.<i>.<field>)',
    description:
      'With locale (not the default): each entry is created in that locale, as POST /api/collections/{collection}?locale= creates one; the answers are in it.',
    request: { params: collectionParam, ...localeQuery, body: z.object({ entries: z.array(entryBody).min(1).max(100) }) },
    response: z.object({ items: z.array(entry) }),
    handler: async ({ params, query, body, scope }) => ({
      items: await scope.content.entries(params.collection).createMany(body.entries, { locale: query.locale }),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/collections/:collection/batch-delete',
    permission: 'content:write',
    permissionScope: 'collection',
    tags: ['entries'],
    summary: 'Deletes up to 500 entries by id (ids of other tenants or unknown ids are skipped)',
    request: { params: collectionParam, body: z.object({ ids: z.array(z.string().uuid()).min(1).max(500) }) },
    response: z.object({ deleted: z.number() }),
    handler: async ({ params, body, scope }) => ({ deleted: await scope.content.entries(params.collection).removeMany(body.ids) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/collections/:collection',
    permission: 'content:read',
    permissionScope: 'collection',
    tags: ['entries'],
    summary:
      'Lists entries: page, limit (25, at most 100), sort (field, -field, field:asc), search, status, filter (JSON); cached until the next write',
    description:
      "Callers without content:write see published entries only. X-Cache: HIT or MISS tells whether the list came from the cache (a 304 counts as HIT: it was answered from the collection's version token without reading the list). The ETag changes with every write to the collection. Callers without a session read it when the collection is public (PUT /api/collections/{collection}/public-access).",
    request: { params: collectionParam, query: listQuerySchema },
    response: z.object({
      items: z.array(entry),
      total: z.number(),
      page: z.number().nullable().describe('null for a cursor page (after, before)'),
      limit: z.number(),
      nextCursor: z.string().nullable().optional().describe('Cursor pages: the next page (after=), null at the end'),
      prevCursor: z.string().nullable().optional().describe('Cursor pages: the previous page (before=), null at the start'),
    }),
    async handler({ ctx, params, query, identity, scope }) {
      // The list's tag is known before it is loaded: a matching If-None-Match is answered 304 at once,
      // and a 200 sends the stored serialised body with its stored tag (nothing parsed or hashed again).
      const answer = await scope.entries.answerList(params.collection, query, identity, ctx.get('if-none-match'));
      ctx.set('X-Cache', answer.cached ? 'HIT' : 'MISS');
      if (answer.etag) ctx.set('ETag', answer.etag);
      if (answer.notModified) {
        ctx.status = 304;
        return null;
      }
      return new SerialisedEnvelope(answer.body);
    },
  }),
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/collections/:collection',
    permission: 'content:write',
    permissionScope: 'collection',
    tags: ['entries'],
    status: 201,
    summary:
      'Creates an entry (status draft unless given); the slug comes from slug, title, name or the first text field, made unique with -2, -3…',
    description:
      "With locale (not the default): the entry is created in that locale: the body's localized fields and status are that locale's version's (a required localized field must be given); the other fields are shared by every locale; the default locale's version starts as a draft with its localized fields empty.",
    request: { params: collectionParam, ...localeQuery, body: entryBody },
    response: entry,
    handler: ({ params, query, body, scope }) => scope.content.entries(params.collection).create(body, { locale: query.locale }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/collections/:collection/:entryId/status',
    permission: 'content:write',
    permissionScope: 'collection',
    tags: ['entries'],
    summary: "Sets an entry's status: draft, published or archived (with locale: the status of the entry's version in that locale)",
    request: { ...entryParams, ...localeQuery, body: z.object({ status: z.enum(STATUSES) }) },
    response: entry,
    handler: ({ params, query, body, scope }) =>
      scope.content.entries(params.collection).setStatus(params.entryId, body.status, { locale: query.locale }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/collections/:collection/:entryId/revisions',
    permission: 'content:write',
    tags: ['entries'],
    summary: "The entry's revisions, newest first: the state after each write",
    description:
      "Each names its locale: a write in a locale other than the default records the entry as answered in that locale; with locale, only that locale's revisions (* : all).",
    request: { ...entryParams, ...localeQuery },
    response: z.array(
      z.object({
        version: z.number(),
        action: z.string(),
        locale: z.string(),
        data: entry,
        createdAt: z.string(),
        createdBy: z.string().nullable(),
      }),
    ),
    handler: ({ params, query, scope }) => scope.content.entries(params.collection).revisions(params.entryId, { locale: query.locale }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/collections/:collection/:entryId/revisions/:version/restore',
    permission: 'content:write',
    tags: ['entries'],
    summary: "Writes a revision's state as a new version (its fields; slug and status stay); 404 for an unknown version",
    description:
      "A revision of a write in a locale restores that locale's version: its own values of localized fields (the fields that fell back then fall back again); shared fields stay. The answer is the entry in the revision's locale. In a collection with working drafts (drafts: true) the state is written into the entry's draft instead (as PUT .../draft; the answer is the draft).",
    request: { params: entryParams.params.extend({ version: z.coerce.number().int().min(1).max(2_147_483_647) }) },
    response: entry,
    handler: ({ params, scope }) => scope.content.entries(params.collection).restoreRevision(params.entryId, params.version),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/collections/:collection/single',
    permission: 'content:read',
    permissionScope: 'collection',
    tags: ['entries'],
    summary: "A singleton's one entry (404 before it is written; callers without content:write: when published)",
    request: { params: collectionParam, query: z.object({ fields: fieldsParam, populate: populateParam, locale: localeParam }) },
    response: entry,
    handler: ({ params, query, identity, scope }) => scope.entries.single.get(params.collection, identity, query),
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/collections/:collection/single',
    permission: 'content:write',
    permissionScope: 'collection',
    tags: ['entries'],
    summary: "Writes a singleton's one entry: 201 the first time, then 200 (the body's fields replace the stored ones)",
    description:
      "With locale (not the default): as PATCH and POST with locale (localized fields are that locale's version's; one left out is emptied there).",
    request: { params: collectionParam, ...localeQuery, body: entryBody },
    response: entry,
    async handler({ ctx, params, query, body, identity, scope }) {
      const { entry: written, created } = await scope.entries.single.put(params.collection, body, identity, query.locale);
      ctx.status = created ? 201 : 200;
      return written;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/collections/:collection/:entryId',
    permission: 'content:read',
    permissionScope: 'collection',
    tags: ['entries'],
    summary: 'One entry (callers without content:write: published entries only; guests too when the collection is public)',
    request: { ...entryParams, query: z.object({ fields: fieldsParam, populate: populateParam, locale: localeParam }) },
    response: entry,
    handler: ({ params, query, identity, scope }) => scope.entries.get(params.collection, params.entryId, identity, query),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/collections/:collection/:entryId',
    permission: 'content:write',
    permissionScope: 'collection',
    tags: ['entries'],
    summary:
      'Updates the given fields (a required field cannot be set to null); 409 when the entry changed at the same time, or is no longer at ifVersion',
    description:
      "With locale (not the default): the body's localized fields and status are that locale's version's (created as a draft when first written there); the other fields are shared by every locale. With ifVersion (the entry's `version` the change was made from, as the admin UI sends it): when the entry is at another version now, 409 CONFLICT with `current: {version, updatedAt, updatedBy}` and nothing is written (GET .../revisions/{version}/diff?against={ifVersion} says what changed).",
    request: {
      ...entryParams,
      query: localeQuery.query.extend({
        ifVersion: z.coerce
          .number()
          .int()
          .min(1)
          .max(2_147_483_647)
          .optional()
          .describe('The version the change was made from (optimistic concurrency)'),
      }),
      body: entryBody,
    },
    response: entry,
    handler: ({ params, query, body, scope }) =>
      scope.content.entries(params.collection).update(params.entryId, body, { locale: query.locale, ifVersion: query.ifVersion }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/collections/:collection/:entryId',
    permission: 'content:write',
    permissionScope: 'collection',
    tags: ['entries'],
    summary: 'Deletes an entry and its revisions',
    request: entryParams,
    response: z.object({ deleted: z.literal(true) }),
    async handler({ params, scope }) {
      await scope.content.entries(params.collection).remove(params.entryId);
      return { deleted: true };
    },
  }),
];
