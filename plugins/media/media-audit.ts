import { recordRequestAudit, wrapNamedRoutes, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import { linkIdOf } from './shares-service.js';

type Audited = (context: RouteContext, result: unknown, before: { filename: string | null }) => Promise<void>;

/** A share link as entries name it: the first 12 characters of its id (the token's SHA-256), never the token. */
const linkRef = (tokenOrId: string) => linkIdOf(tokenOrId).slice(0, 12);

const record = (
  context: RouteContext,
  operation: string,
  level: 'low' | 'medium',
  message: string,
  target: { type: string; id: string | null },
  details: Record<string, unknown> = {},
) =>
  recordRequestAudit(context.ctx, {
    domain: 'media',
    operation,
    action: `media.${operation}`,
    outcome: 'success',
    level,
    message,
    target,
    details,
  });

const named = (filename: string | null, id: string) => (filename ? `"${filename}"` : id);

const AUDITED: Record<string, Audited> = {
  'DELETE /api/media/:id': async (c, result, before) => {
    const trashed = (result as { trashed?: boolean } | undefined)?.trashed === true;
    await record(
      c,
      'deleted',
      'medium',
      `Media item ${named(before.filename, c.params.id)} deleted${trashed ? ' (to the trash)' : ' for good'}`,
      { type: 'media', id: c.params.id },
      { trashed, filename: before.filename },
    );
  },
  'DELETE /api/media/trash': async (c, result) => {
    const purged = (result as { purged?: number } | undefined)?.purged ?? 0;
    const one: string | null = c.query.id ?? c.query.path ?? null;
    await record(
      c,
      'trash-purged',
      'medium',
      one ? `Media trash: item ${one} deleted for good` : `Media trash emptied: ${purged} item(s) deleted for good`,
      { type: 'media', id: c.query.id ?? null },
      { purged, ...(c.query.path ? { path: c.query.path } : {}) },
    );
  },
  'POST /api/media/share/:mediaId': async (c, result, before) => {
    const token = (result as { token?: string; expiresAt?: string | null } | undefined)?.token;
    const expiresAt = (result as { expiresAt?: string | null } | undefined)?.expiresAt ?? null;
    await record(
      c,
      'share-created',
      'medium',
      `Share link created for ${named(before.filename, c.params.mediaId)}${expiresAt ? ` (expires ${expiresAt})` : ' (no expiry)'}${c.body?.password ? ', password-protected' : ''}`,
      { type: 'media', id: c.params.mediaId },
      { link: token ? linkRef(token) : null, expiresAt, passwordProtected: Boolean(c.body?.password) },
    );
  },
  'DELETE /api/media/share/:mediaId/:token': async (c, _result, before) => {
    await record(
      c,
      'share-revoked',
      'medium',
      `Share link revoked for ${named(before.filename, c.params.mediaId)}`,
      { type: 'media', id: c.params.mediaId },
      { link: linkRef(c.params.token) },
    );
  },
};

/**
 * Media deletions and share links go into the audit trail once the route succeeded: the item (id and
 * name), never a share token or password (a link is named by the start of its id).
 */
export function auditMediaChanges(routes: RouteDefinition[]): void {
  wrapNamedRoutes(routes, AUDITED, (handler, audited) => async (context: RouteContext) => {
    const id = context.params?.id ?? context.params?.mediaId;
    let filename: string | null = null;
    if (typeof id === 'string')
      filename = await context.scope.media.get(context.identity, id).then(
        (m: { filename?: string }) => m.filename ?? null,
        () => null,
      );
    const result = await handler(context);
    await audited(context, result, { filename });
    return result;
  });
}
