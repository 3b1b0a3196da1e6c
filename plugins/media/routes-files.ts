import { NotFoundError, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { requirePrivateRead } from './access.js';
import { sendFile, setFileSecurityHeaders } from './file-responder.js';
import type { MediaOptions } from './media-options.js';
import { confinePath } from './media-paths.js';

/** GET /files/<relative path>: public by declaration; private media are checked here (media:read in their tenant). */
export function fileRoutes(options: MediaOptions): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/files/*path',
      permission: 'public',
      envelope: false,
      tags: ['media'],
      summary: 'Serves a media file or thumbnail by its relative path',
      description:
        'Local storage: streamed with ETag (304 on If-None-Match), one byte range (206; 416 when unsatisfiable), Content-Type from the record, Content-Disposition ' +
        "(inline only for images but SVG, PDF, audio, video and plain text), X-Content-Type-Options: nosniff and Content-Security-Policy: default-src 'none'; sandbox. " +
        'Remote storage: 304 when If-None-Match equals the remote ETag, otherwise 307 to the public URL with the ETag (private media stream through instead). ' +
        'Private media need media:read in their tenant (401 / 403; 404 for another tenant). Traversal attempts answer 400 MEDIA_PATH_INVALID before any lookup.',
      request: {},
      handler: async ({ ctx, identity, scope }) => {
        setFileSecurityHeaders(ctx);
        const path = confinePath(ctx.path.replace(/^\/files\//i, ''), true);
        const found = await scope.media.fileAt(path);
        if (!found) throw new NotFoundError('No file at this address');
        const isPrivate = Boolean(found.item.private);
        if (isPrivate) requirePrivateRead(identity, found.item);
        await sendFile(ctx, scope.mediaStorage, found, {
          disposition: 'auto',
          cacheControl: isPrivate ? 'private, no-store' : 'public, max-age=3600',
          inlineTypes: options.inlineTypes,
          redirectRemote: !isPrivate,
        });
      },
    }),
  ];
}
