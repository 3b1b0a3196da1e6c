/**
 * /api/presence/:collection/:id: who has an entry open (docs/features/presence.md). Signed-in users only; the
 * caller must be able to read the entry (its collection's content:read in their tenant, the entry visible to them).
 */
import { z } from 'zod';
import { defineRoute, ForbiddenError, hasScopedPermission, type Identity, type RouteDefinition } from '../../kernel/sdk.js';
import type { PresenceKey, PresenceStore, Visitor } from './presence-store.js';

const tags = ['presence'];
const params = z.object({ collection: z.string().min(1).max(64), id: z.string().min(1).max(36) });
const tab = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, '8 to 64 letters, digits, _ or -')
  .describe("The browser tab's random id (one per tab: a user with the entry open in two tabs is there twice)");
const presenceView = z
  .object({
    editor: z.object({ tab: z.string(), userId: z.string().nullable(), name: z.string() }).nullable(),
    youEdit: z.boolean(),
    tabs: z.array(
      z.object({
        tab: z.string(),
        userId: z.string().nullable(),
        name: z.string(),
        since: z.string(),
        lastSeen: z.string(),
        editing: z.boolean(),
        you: z.boolean(),
      }),
    ),
    ttlSeconds: z.number().int(),
  })
  .meta({ id: 'Presence' });

/** What the routes need besides the store: the caller's display name, and whether they may read the entry. */
export interface PresenceDeps {
  store(): PresenceStore;
  nameOf(identity: Identity): Promise<string>;
  /** Throws the content API's 404 when the caller cannot see the entry. */
  assertVisible(scope: unknown, collection: string, id: string): Promise<void>;
  changed(key: PresenceKey): void;
}

function signedIn(identity: Identity): string {
  if (identity.kind !== 'user' || !identity.userId) throw new ForbiddenError('Only signed-in users have entries open');
  return identity.userId;
}

const keyOf = (identity: Identity, p: { collection: string; id: string }): PresenceKey => ({
  tenantId: identity.tenantId,
  collection: p.collection,
  entryId: p.id,
});

export function routes(deps: PresenceDeps): RouteDefinition[] {
  return [...lookRoutes(deps), ...moveRoutes(deps)];
}

/** Looking: who is there, and the heartbeat. */
function lookRoutes(deps: PresenceDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/presence/:collection/:id',
      permission: 'content:read',
      permissionScope: 'collection',
      tags,
      request: { params, query: z.object({ tab: tab.optional() }) },
      summary: 'Who has the entry open: the editor and every tab with a heartbeat within the time to live',
      response: presenceView,
      async handler({ identity, params: p, query, scope }) {
        signedIn(identity);
        await deps.assertVisible(scope, p.collection, p.id);
        return deps.store().view(keyOf(identity, p), query.tab ?? null);
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/presence/:collection/:id',
      permission: 'content:read',
      permissionScope: 'collection',
      tags,
      request: { params, body: z.strictObject({ tab }) },
      summary: "A tab's heartbeat: opens the entry on the first (the first tab that may write becomes its editor) and answers who is there",
      description:
        'The admin UI sends one about every ttlSeconds / 3. A tab without a heartbeat for ttlSeconds is gone: if it was the editor, the next tab that may write (the earliest to open it) becomes the editor.',
      response: presenceView,
      async handler({ identity, params: p, body, scope }) {
        const userId = signedIn(identity);
        await deps.assertVisible(scope, p.collection, p.id);
        const key = keyOf(identity, p);
        const visitor: Visitor = {
          tab: body.tab,
          userId,
          name: await deps.nameOf(identity),
          canEdit: hasScopedPermission(identity, 'content:write', p.collection),
        };
        const before = await deps.store().view(key, body.tab);
        const view = await deps.store().heartbeat(key, visitor);
        if (!before.tabs.some((t) => t.you)) deps.changed(key);
        return view;
      },
    }),
  ];
}

/** Taking over and leaving. */
function moveRoutes(deps: PresenceDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/presence/:collection/:id/take-over',
      permission: 'content:write',
      permissionScope: 'collection',
      tags,
      request: { params, body: z.strictObject({ tab }) },
      summary:
        'The tab becomes the editor of the entry (the previous editor sees it read-only from its next heartbeat); 409 PRESENCE_NOT_PRESENT when the tab has not opened it',
      response: presenceView,
      async handler({ identity, params: p, body, scope }) {
        signedIn(identity);
        await deps.assertVisible(scope, p.collection, p.id);
        const key = keyOf(identity, p);
        const view = await deps.store().takeOver(key, body.tab);
        deps.changed(key);
        return view;
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/presence/:collection/:id',
      permission: 'content:read',
      permissionScope: 'collection',
      tags,
      request: { params, query: z.object({ tab }) },
      summary: 'The tab closed the entry (the admin UI sends it when the page closes; otherwise the heartbeat expires)',
      response: z.object({ left: z.literal(true) }),
      async handler({ identity, params: p, query }) {
        signedIn(identity);
        const key = keyOf(identity, p);
        await deps.store().leave(key, query.tab);
        deps.changed(key);
        return { left: true as const };
      },
    }),
  ];
}
