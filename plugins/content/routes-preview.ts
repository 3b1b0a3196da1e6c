/** Preview links of one entry (preview-links.ts): make, read the state, revoke; and the public page's data. */
import { z } from 'zod';
import { type Identity, ValidationError, defineRoute, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import { entryParams, entryStateAccess, entryStateRoute } from './entry-state-route.js';
import { DEFAULT_HOURS, MAX_HOURS, MAX_PER_ENTRY } from './preview-links.js';

const PATH = '/api/collections/:collection/:entryId/preview-links';
const linkState = z
  .object({
    active: z.number().int().meta({ description: 'Live (unexpired, unrevoked) preview links of the entry' }),
    expiresAt: z.string().nullable().meta({ description: 'When the last live link expires (ISO 8601)' }),
  })
  .meta({ id: 'PreviewLinkState' });

const previewField = z.object({
  name: z.string(),
  label: z.string(),
  type: z.string(),
  value: z.unknown().optional(),
  html: z.string().optional().meta({ description: 'Rich text and Markdown fields: sanitised HTML' }),
  media: z
    .object({ url: z.string(), filename: z.string(), mimeType: z.string(), width: z.number().optional(), height: z.number().optional() })
    .nullable()
    .optional(),
  relation: z
    .object({ collection: z.string(), title: z.string() })
    .nullable()
    .optional()
    .meta({ description: "Relation fields: the related entry's display title (null when it no longer exists); value keeps its id" }),
});

/** Making and revoking links is recorded in the audit trail (entry.preview-link.created|revoked). */
function audited(
  scope: RouteContext['scope'],
  identity: Identity,
  what: 'created' | 'revoked',
  message: string,
  details: Record<string, unknown>,
): void {
  scope.audit.record({
    domain: 'content',
    operation: 'preview-link',
    actor: { userId: identity.userId ?? null, tenantId: identity.tenantId },
    outcome: 'success',
    level: 'low',
    action: `entry.preview-link.${what}`,
    message,
    details,
  });
}

export const previewRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    ...entryStateAccess(PATH),
    status: 201,
    summary: 'Makes a preview link: anyone holding it sees the entry as it is now, drafts included, until it expires',
    description: `expiresInHours 1-${MAX_HOURS} (default ${DEFAULT_HOURS}). locale (a locale's code; default: the default locale): the link shows the entry in that locale (its values there, with fallbacks); unknown: 400 VALIDATION_ERROR. The token is shown only in this answer (the server keeps a hash). An entry keeps at most ${MAX_PER_ENTRY} live links; a newer one drops the oldest. Deleting the entry or DELETE on this path revokes them.`,
    request: {
      ...entryParams,
      body: z.object({
        expiresInHours: z.number().int().min(1).max(MAX_HOURS).optional(),
        locale: z.string().max(35).optional().describe("A locale's code: the link shows the entry in it (default: the default locale)"),
      }),
    },
    response: z
      .object({
        token: z.string(),
        url: z.string().meta({ description: 'The admin UI page that shows the preview, e.g. /admin/preview?token=…' }),
        expiresAt: z.string(),
      })
      .meta({ id: 'PreviewLink' }),
    async handler({ params, body, identity, scope }) {
      // The entry exists for the caller, and the locale is one (its canonical code is the answer's _locale).
      if (body.locale === '*')
        throw new ValidationError('A preview names one locale', [{ path: 'body.locale', message: 'one locale, not *' }]);
      const found = await scope.content.entries(params.collection).get(params.entryId, body.locale ? { locale: body.locale } : {});
      const locale = body.locale ? String(found._locale) : null;
      const link = await scope.previewLinks.create(
        identity.tenantId,
        params.collection,
        params.entryId,
        body.expiresInHours ?? DEFAULT_HOURS,
        identity.userId ?? null,
        locale,
      );
      audited(scope, identity, 'created', `Preview link made for '${params.collection}/${params.entryId}', valid until ${link.expiresAt}`, {
        ...params,
        expiresAt: link.expiresAt,
        ...(locale ? { locale } : {}),
      });
      return link;
    },
  }),
  entryStateRoute(PATH, 'How many live preview links the entry has', linkState, (scope, tenantId, collection, entryId) =>
    scope.previewLinks.status(tenantId, collection, entryId),
  ),
  defineRoute({
    method: 'DELETE',
    ...entryStateAccess(PATH),
    summary: 'Revokes every preview link of the entry (they answer 404 from then on)',
    request: entryParams,
    response: z.object({ revoked: z.number().int() }),
    async handler({ params, identity, scope }) {
      await scope.content.entries(params.collection).get(params.entryId);
      const revoked = await scope.previewLinks.revokeAll(identity.tenantId, params.collection, [params.entryId]);
      audited(scope, identity, 'revoked', `Preview links of '${params.collection}/${params.entryId}' revoked (${revoked})`, {
        ...params,
        revoked,
      });
      return { revoked };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/preview/:token',
    permission: 'public',
    tags: ['entries'],
    summary: "A preview link's entry, ready to show: fields in schema order, rich text and Markdown as sanitised HTML",
    description:
      "No session needed: the token is the permission. 404 PREVIEW_NOT_FOUND (unknown, revoked, or the entry deleted), 410 PREVIEW_EXPIRED. Never cached, never indexed. Readable from any origin (Access-Control-Allow-Origin: *), so a site's preview page can fetch it (live preview).",
    request: { params: z.object({ token: z.string().min(1).max(200) }) },
    response: z
      .object({
        collection: z.object({ name: z.string(), label: z.string(), singular: z.string() }),
        locale: z.string().meta({ description: 'The locale the entry is shown in (the one the link was made in)' }),
        entry: z.object({
          id: z.string(),
          slug: z.string(),
          status: z.string(),
          version: z.number(),
          updatedAt: z.string(),
          title: z.string(),
          draft: z.boolean().describe("The values are the entry's working draft's (a collection with drafts), not the published ones"),
        }),
        fields: z.array(previewField),
        expiresAt: z.string(),
      })
      .meta({ id: 'EntryPreview' }),
    async handler({ ctx, params, scope }) {
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Robots-Tag', 'noindex, nofollow');
      // The site's own preview page reads it from its origin (live preview): the token is the permission, no cookie
      // is read, so any origin may ask.
      ctx.set('Access-Control-Allow-Origin', '*');
      return scope.previewLinks.open(params.token);
    },
  }),
];
