import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { folderName, folderSchema, idParam } from './media-schemas.js';

const parentId = z.string().uuid().nullable();

/** Virtual folders of the media library. */
export const folderRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/media/folders',
    permission: 'media:read',
    tags: ['media'],
    summary: "The tenant's media folders (flat; parentId builds the tree) with their item counts",
    request: {},
    response: z.array(folderSchema),
    handler: ({ identity, scope }) => scope.mediaFolders.list(identity.tenantId),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/media/folders',
    permission: 'media:write',
    status: 201,
    tags: ['media'],
    summary: 'Creates a media folder (names unique per parent: 409 FOLDER_EXISTS)',
    request: { body: z.object({ name: folderName, parentId: parentId.optional() }) },
    response: folderSchema,
    handler: ({ body, identity, scope }) => scope.mediaFolders.create(identity.tenantId, body),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/media/folders/:id',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Renames a media folder and/or moves it under another parent (not into itself)',
    request: { params: idParam, body: z.object({ name: folderName.optional(), parentId: parentId.optional() }) },
    response: folderSchema,
    handler: ({ params, body, identity, scope }) => scope.mediaFolders.update(identity.tenantId, params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/media/folders/:id',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Deletes an empty media folder (409 FOLDER_NOT_EMPTY otherwise)',
    request: { params: idParam },
    response: z.object({ deleted: z.literal(true) }),
    handler: async ({ params, identity, scope }) => {
      await scope.mediaFolders.remove(identity.tenantId, params.id);
      return { deleted: true };
    },
  }),
];
