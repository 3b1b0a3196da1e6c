/**
 * Revisions you can read (issue 37, item 2; API decisions "Revisions"): the difference between two versions of an
 * entry, field by field (restoring one is in routes-entries.ts). It reads the entry's revision history (the state after
 * each write, entry-revisions.ts) through the caller's content client, so tenant and permissions are its.
 */
import { z } from 'zod';
import { defineRoute, NotFoundError, type RouteDefinition } from '../../kernel/sdk.js';
import type { Entry } from './entry-shape.js';
import type { LocalClient } from './local-client.js';

const params = z.object({
  collection: z.string().min(1).max(64),
  entryId: z.string().uuid(),
  version: z.coerce.number().int().min(1).max(2_147_483_647),
});
const change = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });

/** Besides the schema's fields, the entry's own values a person edits and so sees in a diff. */
const EDITED_SYSTEM_FIELDS = ['slug', 'status'] as const;

type Revision = Awaited<ReturnType<ReturnType<LocalClient['entries']>['revisions']>>[number];

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields compared: the schema's now, then fields either version has that the schema no longer has. */
function comparedFields(schemaFields: string[], a: Entry, b: Entry): string[] {
  const known = new Set<string>([...schemaFields, ...EDITED_SYSTEM_FIELDS]);
  const SYSTEM = new Set(['_id', 'version', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy', 'syncId']);
  const gone = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !known.has(k) && !SYSTEM.has(k) && !k.startsWith('_'));
  return [...schemaFields, ...EDITED_SYSTEM_FIELDS, ...gone.sort()];
}

function revisionOf(history: Revision[], version: number, name: string, id: string): Revision {
  const found = history.find((r) => r.version === version);
  if (!found) throw new NotFoundError(`Entry '${id}' of '${name}' has no revision ${version}`);
  return found;
}

async function historyOf(content: LocalClient, collection: string, entryId: string): Promise<Revision[]> {
  await content.entries(collection).get(entryId); // 404 for an entry the caller cannot see
  return content.entries(collection).revisions(entryId);
}

export const revisionRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/collections/:collection/:entryId/revisions/:version/diff',
    permission: 'content:write',
    permissionScope: 'collection',
    tags: ['entries'],
    summary:
      "What changed between two versions of an entry: each field whose value differs, `before` the `against` version's, `after` this version's",
    description:
      'against: another version (default: the revision before this one in the same locale). Fields are the schema fields, then slug and status, then fields a version holds that the schema no longer has. Values are compared as stored (a rich text field as its HTML); 404 NOT_FOUND for a version without a revision.',
    request: { params, query: z.object({ against: z.coerce.number().int().min(1).max(2_147_483_647).optional() }) },
    response: z.object({ version: z.number(), against: z.number().nullable(), changes: z.array(change) }),
    async handler({ params: p, query, scope }) {
      const history = await historyOf(scope.content, p.collection, p.entryId);
      const after = revisionOf(history, p.version, p.collection, p.entryId);
      // By default the revision before it in the same locale (a locale's writes and the row's are kept apart).
      const older = history
        .filter((r) => r.version < p.version && (r.locale ?? null) === (after.locale ?? null))
        .sort((a, b) => b.version - a.version)[0];
      const before = query.against !== undefined ? revisionOf(history, query.against, p.collection, p.entryId) : older;
      const schema = (await scope.content.collections.get(p.collection)).fields.map((f: { name: string }) => f.name);
      const empty = {} as Entry;
      const changes = comparedFields(schema, before?.data ?? empty, after.data)
        .filter((field) => !same(before?.data[field], after.data[field]))
        .map((field) => ({ field, before: before?.data[field] ?? null, after: after.data[field] ?? null }));
      return { version: after.version, against: before?.version ?? null, changes };
    },
  }),
];
