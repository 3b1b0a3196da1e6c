/**
 * Working drafts (issue 37; API decisions "Editorial: working drafts"; docs/features/drafts.md): an entry of a collection
 * with `drafts: true` may have one draft per locale beside its published version. Through the caller's content client,
 * so tenant and permissions are its; a collection without drafts answers 400 VALIDATION_ERROR.
 */
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { localeParam } from './routes-entries.js';

const params = z.object({ collection: z.string().min(1).max(64), entryId: z.string().uuid() });
const localeQuery = z.object({ locale: localeParam });
const draft = z
  .object({
    _id: z.string(),
    slug: z.string(),
    status: z.string(),
    version: z.number().describe("The published entry's version"),
    hasDraft: z.boolean(),
    _draft: z.object({
      version: z.number().describe("The draft's own version (each PUT adds one)"),
      basedOn: z.number().describe("The entry's version when the draft was made"),
      updatedAt: z.string(),
      updatedBy: z.string().nullable(),
      fields: z.array(z.string()).describe('The fields written to the draft (the others show the published values)'),
    }),
  })
  .catchall(z.unknown())
  .meta({ id: 'EntryDraft' });
const published = z.object({ _id: z.string(), version: z.number(), hasDraft: z.boolean() }).catchall(z.unknown());
const NOT_DRAFTS = 'A collection without drafts: 400 VALIDATION_ERROR.';

export const draftRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/collections/:collection/:entryId/draft',
    permission: 'content:write',
    tags: ['entries'],
    summary: "The entry's working draft: the entry with the draft's fields over the published ones (404 NOT_FOUND when it has none)",
    description: `Callers who see published entries only (without content:write) never see a draft. ${NOT_DRAFTS}`,
    request: { params, query: localeQuery },
    response: draft,
    handler: ({ params: p, query, scope }) => scope.content.entries(p.collection).getDraft(p.entryId, { locale: query.locale }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/collections/:collection/:entryId/draft',
    permission: 'content:write',
    tags: ['entries'],
    summary: "Writes the entry's working draft: the fields sent change, the others keep the draft's values (made from the published ones)",
    description: `Checked as PATCH checks (400 VALIDATION_ERROR naming the field); status cannot be sent (POST .../draft/publish publishes). Nothing published changes and no entry event is sent. ${NOT_DRAFTS}`,
    request: {
      params,
      query: localeQuery,
      body: z.record(z.string(), z.unknown()).describe("The collection's fields, and optionally slug"),
    },
    response: draft,
    handler: ({ params: p, query, body, scope }) => scope.content.entries(p.collection).putDraft(p.entryId, body, { locale: query.locale }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/collections/:collection/:entryId/draft/publish',
    permission: 'content:write',
    tags: ['entries'],
    summary: "Publishes the working draft: its fields become the entry's (a new version and revision, status published), the draft goes",
    description: `Emits on:update and on:publish. 404 NOT_FOUND when the entry has no draft. ${NOT_DRAFTS}`,
    request: { params, query: localeQuery },
    response: published,
    handler: ({ params: p, query, scope }) => scope.content.entries(p.collection).publishDraft(p.entryId, { locale: query.locale }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/collections/:collection/:entryId/draft',
    permission: 'content:write',
    tags: ['entries'],
    summary: "Discards the entry's working draft (the published entry stays as it is); 404 NOT_FOUND when it has none",
    description: NOT_DRAFTS,
    request: { params, query: localeQuery },
    response: z.object({ deleted: z.literal(true) }),
    async handler({ params: p, query, scope }) {
      await scope.content.entries(p.collection).discardDraft(p.entryId, { locale: query.locale });
      return { deleted: true as const };
    },
  }),
];
