import { z } from 'zod';
import { ValidationError, defineRoute, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import { sendFile, setFileSecurityHeaders } from './file-responder.js';
import { fileUrl } from './media-view.js';
import { auditMediaChanges } from './media-audit.js';

const shareAnswer = z.object({
  token: z.string(),
  expiresAt: z.string().nullable().meta({ description: 'ISO time; null = the link never expires' }),
});
const linkParams = z.object({ mediaId: z.string().max(100), token: z.string().min(1).max(200) });
/** Hours: 1 hour up to 10 years. */
const hours = z
  .number()
  .int()
  .min(1)
  .max(24 * 365 * 10);

const shareMetadata = z
  .object({
    success: z.literal(true),
    data: z.object({ filename: z.string(), mimeType: z.string(), size: z.number(), url: z.string() }),
  })
  .meta({ description: 'With download=1: the file (Content-Type of the item, Content-Disposition: attachment) instead of this JSON.' });
const accessOrder =
  'Checked in this order: id and token present (400 VALIDATION_ERROR), a link for the token on that item (404 SHARE_NOT_FOUND), not expired (410 SHARE_EXPIRED), ' +
  'the password when the link has one (401 SHARE_PASSWORD_REQUIRED / SHARE_PASSWORD_INVALID; after too many wrong ones 429 RATE_LIMITED with Retry-After).';

/** Opens a share link (GET and POST): the metadata, or the file with download. */
async function openShare(
  { ctx, scope }: Pick<RouteContext, 'ctx' | 'scope'>,
  input: { id?: string; token?: string; password?: string; download?: string },
): Promise<void> {
  ctx.set('Cache-Control', 'private, no-store');
  if (!input.id || !input.token) {
    throw new ValidationError('A share link needs both id and token', [
      ...(!input.id ? [{ path: 'query.id', message: 'required' }] : []),
      ...(!input.token ? [{ path: 'query.token', message: 'required' }] : []),
    ]);
  }
  const item = await scope.mediaShares.access({ id: input.id, token: input.token, password: input.password });
  if (input.download === '1' || input.download === 'true') {
    setFileSecurityHeaders(ctx);
    const file = { item, path: item.path, mimeType: item.mime_type, size: Number(item.size), filename: item.filename };
    await sendFile(ctx, scope.mediaStorage, file, {
      disposition: 'attachment',
      cacheControl: 'private, no-store',
      inlineTypes: [],
      redirectRemote: false,
    });
    return;
  }
  ctx.body = {
    success: true,
    data: { filename: item.filename, mimeType: item.mime_type, size: Number(item.size), url: fileUrl(item.path) },
  };
}

/** Share links (the spec's table): create, public access, revoke, extend. */
export const shareRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/media/share',
    permission: 'public',
    envelope: false,
    tags: ['media'],
    summary: "Opens a share link: the item's metadata, or with download=1 the file itself (attachment)",
    description:
      `${accessOrder} The password travels best in the X-Share-Password header (or use POST /api/media/share): ` +
      "the spec's ?password= query still works, but a URL ends up in logs and browser history.",
    request: {
      query: z.object({
        id: z.string().max(100).optional(),
        token: z.string().max(200).optional(),
        password: z.string().max(1024).optional(),
        download: z.enum(['1', 'true', '0', 'false']).optional(),
      }),
    },
    response: shareMetadata,
    handler: async ({ ctx, query, scope }) => {
      const header = ctx.get('x-share-password');
      if (header.length > 1024)
        throw new ValidationError('X-Share-Password is too long', [
          { path: 'headers.x-share-password', message: 'at most 1024 characters' },
        ]);
      await openShare({ ctx, scope }, { ...query, password: header || query.password });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/media/share',
    permission: 'public',
    envelope: false,
    tags: ['media'],
    summary: 'Opens a share link with its password in the body (JSON or an HTML form): the metadata, or with download=1 the file',
    description: `The same as GET /api/media/share, with id, token, password and download in the body instead of the URL. ${accessOrder}`,
    request: {
      form: true,
      body: z.object({
        id: z.string().max(100).optional(),
        token: z.string().max(200).optional(),
        password: z.string().max(1024).optional(),
        download: z.enum(['1', 'true', '0', 'false']).optional(),
      }),
    },
    response: shareMetadata,
    handler: async ({ ctx, body, scope }) => openShare({ ctx, scope }, body ?? {}),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/media/share/:mediaId',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Creates a share link (expiryHours null or omitted = never expires; optional password); the token is shown only here',
    request: {
      params: z.object({ mediaId: z.string().max(100) }),
      body: z.object({ expiryHours: hours.nullable().optional(), password: z.string().min(1).max(1024).optional() }),
    },
    response: shareAnswer,
    handler: ({ params, body, identity, scope }) => scope.mediaShares.create(identity, params.mediaId, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/media/share/:mediaId/:token',
    permission: 'media:write',
    tags: ['media'],
    summary: "Revokes a share link (by its token or its id from the item's sharedLinks); it answers 404 from then on",
    request: { params: linkParams },
    response: z.object({ revoked: z.literal(true) }),
    handler: async ({ params, identity, scope }) => {
      await scope.mediaShares.revoke(identity, params.mediaId, params.token);
      return { revoked: true };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/media/share/:mediaId/:token',
    permission: 'media:write',
    tags: ['media'],
    summary: 'Extends a share link: expiry = now + expiryHours',
    request: { params: linkParams, body: z.object({ expiryHours: hours }) },
    response: shareAnswer,
    handler: ({ params, body, identity, scope }) => scope.mediaShares.extend(identity, params.mediaId, params.token, body.expiryHours),
  }),
];

// Deletions and share links are recorded in the audit trail.
auditMediaChanges(shareRoutes);
