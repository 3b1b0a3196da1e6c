import { rm } from 'node:fs/promises';
import { z } from 'zod';
import { multipartFile, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { mediaAnalytics } from './media-analytics.js';
import { idParam, mediaSchema } from './media-schemas.js';
import { listQuerySchema, uploadFields } from './media-service.js';
import { receiveUpload } from './receive-upload.js';
import { auditMediaChanges } from './media-audit.js';

const nullableFolder = z.string().uuid().nullable();

/** Uploads and the library. Static paths come before /api/media/:id (the router takes the first match). */
export const mediaRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/api/media/upload',
    permission: 'media:write',
    status: 201,
    tags: ['media'],
    summary: 'Uploads one file (multipart/form-data: `file`, optional `folderId` and `private`)',
    description:
      'The body is streamed to a temporary file (never held in memory), then stored through the storage driver. Refusals: not multipart -> 415; no file, ' +
      'two files, a bad folderId or private value -> 400 VALIDATION_ERROR; a 0-byte file -> 400 EMPTY_FILE; more than MEDIA_MAX_UPLOAD_MB -> 413 PAYLOAD_TOO_LARGE; ' +
      'a type (detected from the content, not the client) outside MEDIA_ALLOWED_TYPES -> 415 UNSUPPORTED_MEDIA_TYPE. The file keeps its own name (never renamed); ' +
      'an extension that contradicts the content dangerously (.html, .svg, .js, .exe, ... not matching the content, or HTML/SVG/XML content named .png, .txt, ...) ' +
      '-> 415 MEDIA_TYPE_MISMATCH naming both. Raster images get width, height and WebP thumbnails. Publishes on:media_upload.',
    request: {
      multipart: z.object({
        file: multipartFile('the file'),
        folderId: z.string().uuid().optional(),
        private: z.enum(['true', 'false']).optional(),
      }),
    },
    response: mediaSchema,
    handler: async ({ ctx, identity, scope }) => {
      const media = scope.media;
      const limits = await media.limits();
      const received = await receiveUpload(ctx, media.tmpDir, limits.maxBytes);
      try {
        return await media.ingest(identity, received.file, uploadFields(received.fields), limits);
      } finally {
        await rm(received.file.tempPath, { force: true });
      }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/media/analytics',
    permission: 'media:read',
    tags: ['media'],
    summary: "Counts and bytes of the tenant's media: total, by type, by month (UTC), by folder",
    request: {},
    response: z.object({
      total: z.object({ count: z.number(), bytes: z.number() }),
      byType: z.array(z.object({ type: z.string(), count: z.number(), bytes: z.number() })),
      byMonth: z.array(z.object({ month: z.string(), count: z.number(), bytes: z.number() })),
      byFolder: z.array(z.object({ folderId: z.string().nullable(), name: z.string().nullable(), count: z.number(), bytes: z.number() })),
    }),
    handler: ({ identity, scope }) => mediaAnalytics(scope.sequelize, identity.tenantId),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/media/move',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Moves media into a virtual folder (null = root); only folderId changes, URLs and share links keep working',
    request: { body: z.object({ ids: z.array(z.string().uuid()).min(1).max(500), folderId: nullableFolder }) },
    response: z.object({ moved: z.number(), notFound: z.array(z.string()) }),
    handler: ({ body, identity, scope }) => scope.media.move(identity, body.ids, body.folderId),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/media',
    permission: 'media:read',
    tags: ['media'],
    summary:
      "Lists the tenant's media: filters folderId (or root), type (image/ or exact), search, private; sort; pages (limit capped at 100)",
    request: { query: listQuerySchema },
    response: z.object({ items: z.array(mediaSchema), total: z.number(), page: z.number(), limit: z.number() }),
    handler: ({ query, identity, scope }) => scope.media.list(identity, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/media/:id',
    permission: 'media:read',
    tags: ['media'],
    summary: 'One media item (with its share links, by id, never their tokens)',
    request: { params: idParam },
    response: mediaSchema,
    handler: ({ params, identity, scope }) => scope.media.get(identity, params.id),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/media/:id',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Renames a media item (the shown name, kept as given; 415 MEDIA_TYPE_MISMATCH as for uploads) and/or moves it to a folder',
    request: {
      params: idParam,
      body: z.object({ filename: z.string().trim().min(1).max(191).optional(), folderId: nullableFolder.optional() }),
    },
    response: mediaSchema,
    handler: ({ params, body, identity, scope }) => scope.media.update(identity, params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/media/:id',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Deletes a media item and its thumbnails (local storage: to the trash, restorable; remote: for good)',
    request: { params: idParam },
    response: z.object({ deleted: z.literal(true), trashed: z.boolean() }),
    handler: ({ params, identity, scope }) => scope.media.remove(identity, params.id),
  }),
];

// Deletions and share links are recorded in the audit trail.
auditMediaChanges(mediaRoutes);
