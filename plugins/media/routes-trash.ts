import { z } from 'zod';
import { ValidationError, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { confinePath } from './media-paths.js';
import { mediaSchema } from './media-schemas.js';
import { auditMediaChanges } from './media-audit.js';

const target = z
  .object({ path: z.string().min(1).max(400).optional(), id: z.string().uuid().optional() })
  .refine((t) => Boolean(t.path) !== Boolean(t.id), 'give either path or id');
const where = (t: { path?: string; id?: string }) => (t.path ? { path: confinePath(t.path, false) } : { id: t.id! });

/** The local driver's trash, per tenant (media:write). Remote drivers delete directly: 409 MEDIA_TRASH_UNAVAILABLE. */
export const trashRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/media/trash',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Deleted media of the tenant that can still be restored (supported: false on remote storage)',
    request: {},
    response: z.object({
      supported: z.boolean(),
      items: z.array(
        z.object({
          _id: z.string(),
          filename: z.string(),
          path: z.string(),
          mimeType: z.string(),
          size: z.number(),
          deletedAt: z.string(),
        }),
      ),
    }),
    handler: ({ identity, scope }) => scope.mediaTrash.list(identity),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/media/trash/restore',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Restores a deleted media item (by its path or id) with its thumbnails, id, folder and share links',
    request: { body: target },
    response: mediaSchema,
    handler: ({ body, identity, scope }) => scope.mediaTrash.restore(identity, where(body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/media/trash',
    permission: 'media:write',
    tags: ['media'],
    summary: "Empties the tenant's trash for good, or one item of it (?path= or ?id=)",
    request: { query: z.object({ path: z.string().min(1).max(400).optional(), id: z.string().uuid().optional() }) },
    response: z.object({ purged: z.number() }),
    handler: ({ query, identity, scope }) => {
      if (query.path && query.id) throw new ValidationError('Give either path or id, not both');
      return scope.mediaTrash.purge(identity, query.path || query.id ? where(query) : {});
    },
  }),
];

// Deletions and share links are recorded in the audit trail.
auditMediaChanges(trashRoutes);
