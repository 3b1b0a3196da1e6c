import { ruleLimits, type AccessRule } from '../../kernel/sdk.js';
import type { RoleView } from './user-roles.js';

/** The content actions GET /api/roles/:id/explain answers for. */
export const CONTENT_ACTIONS = ['read', 'create', 'update', 'delete', 'publish'] as const;
export type ContentAction = (typeof CONTENT_ACTIONS)[number];

export interface Explanation {
  role: string;
  collection: string;
  action: ContentAction;
  /** Whether the content routes let a holder of this role do it. */
  allowed: boolean;
  /** The permission the content routes check for it: `content:read` for read, `content:write` for the others. */
  permission: string;
  /** The permission of the role that allows it (`content:read:<collection>`: the one-collection read grant), or null. */
  grantedBy: string | null;
  /** Reading without content:write sees published entries only (drafts and archived entries stay hidden). */
  publishedOnly: boolean;
  /** The answer in words. */
  reason: string;
  /** The rules of the role that decide this collection and action (empty: the permission strings decide). */
  rules: AccessRule[];
}

/**
 * Which permission string decides an action on a collection for a role, mirroring the checks of the
 * content routes today: reads need `content:read` or its one-collection grant `content:read:<collection>`
 * (routes with permissionScope 'collection'); creating, updating, deleting and publishing (a status
 * change) need `content:write`; without `content:write` readers see published entries only. Admins pass
 * every check. A rule of the role for the collection (or `*`) and action decides instead (kernel/access-rules.ts):
 * the action is allowed, limited by the rules' fields, where and locales.
 */
export function explainRole(role: RoleView, collection: string, action: ContentAction): Explanation {
  const permission = action === 'read' ? 'content:read' : 'content:write';
  const base = { role: role.name, collection, action, permission, rules: [] as AccessRule[] };
  const limits = ruleLimits({ role: role.name, userId: '$user', rules: role.rules }, collection, action);
  if (limits) {
    const parts = [
      limits.fields ? `only the fields ${[...limits.fields].join(', ')} (and the system fields)` : 'every field',
      limits.where ? `only entries matching ${JSON.stringify(limits.where)} ("$user" is the caller)` : 'every entry',
      limits.locales ? `only the locales ${limits.locales.join(', ')}` : 'every locale',
    ];
    const readOnly = action === 'read' && !role.permissions.includes('content:write');
    return {
      ...base,
      rules: [...limits.rules],
      allowed: true,
      grantedBy: `rule: ${action} ${limits.rules.map((r) => r.collection).join(', ')}`,
      publishedOnly: readOnly,
      reason: `Allowed by ${limits.rules.length === 1 ? 'a rule' : `${limits.rules.length} rules`} of the role: ${parts.join('; ')}.${
        readOnly ? " Without 'content:write' only published entries are read." : ''
      }`,
    };
  }
  if (role.name === 'admin')
    return { ...base, allowed: true, grantedBy: null, publishedOnly: false, reason: 'The admin role passes every permission check.' };
  const has = (p: string) => role.permissions.includes(p);
  if (action !== 'read') {
    const what = action === 'publish' ? 'Publishing is a status change, which' : `To ${action} an entry`;
    return has(permission)
      ? { ...base, allowed: true, grantedBy: permission, publishedOnly: false, reason: `${what} needs 'content:write'; the role has it.` }
      : {
          ...base,
          allowed: false,
          grantedBy: null,
          publishedOnly: false,
          reason: `${what} needs 'content:write'; the role does not have it (403 FORBIDDEN).`,
        };
  }
  const seesAll = has('content:write');
  const scoped = `content:read:${collection}`;
  const grantedBy = has(permission) ? permission : has(scoped) ? scoped : null;
  if (!grantedBy)
    return {
      ...base,
      allowed: false,
      grantedBy: null,
      publishedOnly: false,
      reason: `Reading needs 'content:read' (or '${scoped}' for this collection only); the role has neither (403 FORBIDDEN).`,
    };
  return {
    ...base,
    allowed: true,
    grantedBy,
    publishedOnly: !seesAll,
    reason: seesAll
      ? `Allowed by '${grantedBy}'; with 'content:write' drafts and archived entries are read too.`
      : `Allowed by '${grantedBy}'; without 'content:write' only published entries are read.`,
  };
}
