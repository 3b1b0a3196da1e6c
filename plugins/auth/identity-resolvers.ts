import type { Context } from 'koa';
import {
  AuthenticationRequiredError,
  type Identity,
  type BusEvent,
  type FollowedEach,
  type Logger,
  type PluginBootContext,
  type ContainerServices,
  type IdentityResolver,
  type AccessRule,
} from '../../kernel/sdk.js';
import { GUEST_GRANTS_CHANGED, ROLE_CHANGED } from './public.js';
import { clearSessionCookie, clientIp, SESSION_COOKIE } from './routes.js';
import { auditAuth } from './audit-events.js';

/** Revoked values already recorded in the last minute (bounded): a client retrying in a loop makes one entry a minute. */
const recentRevokedUses = new Map<string, number>();

/**
 * A refused bearer value that was a revoked key or token (its hash is kept as a tombstone) is recorded as
 * a high-severity entry: the value is still in someone's hands. Made-up values are not recorded.
 */
async function auditRevokedUse(ctx: Context, raw: string): Promise<void> {
  try {
    const revoked = await cradle(ctx).tokens.revokedBearer(raw);
    if (!revoked) return;
    const key = `${revoked.kind}:${revoked.id}`;
    const now = Date.now();
    if (now - (recentRevokedUses.get(key) ?? 0) < 60_000) return;
    if (recentRevokedUses.size >= 1000) recentRevokedUses.delete(recentRevokedUses.keys().next().value!);
    recentRevokedUses.set(key, now);
    const what = revoked.kind === 'api-key' ? 'API key' : 'Website token';
    await auditAuth(ctx, {
      action: 'auth.revoked-token.used',
      level: 'high',
      outcome: 'failure',
      message: `${what} "${revoked.name}" was presented after it was ${revoked.reason === 'revoked' ? 'revoked' : revoked.reason === 'password-changed' ? 'revoked with a password change or reset' : 'deleted with its user'}; refused`,
      actor: { userId: revoked.userId, tenantId: revoked.tenantId },
      target: { type: revoked.kind, id: revoked.id },
      details: { reason: revoked.reason, method: ctx.method },
    });
  } catch (err) {
    (ctx.state.logger as Logger).warn({ err }, 'revoked-token check failed');
  }
}

/** Services come from the request scope (identity resolution runs inside it). */
const cradle = (ctx: Context): ContainerServices => ctx.state.scope.cradle;

/**
 * `Authorization: Bearer <API key sck_… | website token>`. A bearer value that matches nothing (unknown,
 * revoked, expired, creator blocked) is refused with 401 rather than treated as a guest.
 */
export function bearerResolver(): IdentityResolver {
  return {
    id: 'bearer',
    priority: 5,
    async resolve(ctx: Context): Promise<Identity | null> {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
      if (!match) return null;
      const identity = await cradle(ctx).tokens.resolveBearer(match[1]!);
      if (!identity) {
        await auditRevokedUse(ctx, match[1]!);
        throw new AuthenticationRequiredError('Invalid, revoked or expired bearer token');
      }
      return identity;
    },
  };
}

/**
 * The session cookie: a definitive miss (unknown, expired, revoked, user gone or blocked) deletes the
 * cookie; a transient failure (database or cache unreachable) keeps it and the request runs as guest.
 */
export function sessionCookieResolver(): IdentityResolver {
  return {
    id: 'session-cookie',
    priority: 10,
    // Sent by the browser on its own: the kernel refuses cross-origin unsafe requests (CSRF_REJECTED).
    ambient: true,
    async resolve(ctx: Context): Promise<Identity | null> {
      const token = ctx.cookies.get(SESSION_COOKIE);
      if (!token) return null;
      let snapshot;
      try {
        snapshot = await cradle(ctx).sessions.resolve(token, { ip: clientIp(ctx), userAgent: ctx.get('user-agent'), method: ctx.method });
      } catch (err) {
        (ctx.state.logger as Logger).warn({ err }, 'session lookup failed; cookie kept');
        return null;
      }
      if (!snapshot) {
        clearSessionCookie(ctx);
        return null;
      }
      return {
        kind: 'user',
        userId: snapshot.userId,
        role: snapshot.role,
        permissions: snapshot.permissions,
        tenantId: snapshot.tenantId,
        meta: { sessionId: snapshot.sessionId, sessionHash: snapshot.idHash },
      };
    },
  };
}

/**
 * Everyone else: the guest identity with the guest role's permissions (none until an admin grants some),
 * kept a minute per tenant once boot connected the followed copies (`follow`: GUEST_GRANTS_CHANGED from
 * any instance drops a tenant's copy; a read that ran across the change answers once but is not kept).
 */
export function guestResolver(): IdentityResolver & { follow(grants: FollowedEach<string, string[]>): void } {
  let grants: FollowedEach<string, string[]> | null = null;
  return {
    follow(followed) {
      grants = followed;
    },
    id: 'guest-role',
    priority: 1000,
    async resolve(ctx: Context): Promise<Identity | null> {
      let tenantId: string;
      let permissions: string[];
      try {
        tenantId = await cradle(ctx).tenants.fromHostname(ctx.hostname);
        permissions = grants ? await grants.get(tenantId) : await cradle(ctx).users.permissionsOf('guest', tenantId);
      } catch {
        return null; // still booting: the kernel's permissionless guest applies
      }
      return { kind: 'guest', userId: null, role: 'guest', permissions, tenantId };
    },
  };
}

/** The guest grants per tenant, followed across instances (read with the `users` service). */
export function guestGrants(
  followEach: PluginBootContext['followEach'],
  users: { permissionsOf(role: string, tenantId: string): Promise<string[]> },
): FollowedEach<string, string[]> {
  return followEach({
    name: 'guest grants',
    load: (tenantId: string) => users.permissionsOf('guest', tenantId),
    on: [GUEST_GRANTS_CHANGED],
    keysOf: (event: BusEvent<{ tenantId: string }>) => (typeof event.payload?.tenantId === 'string' ? [event.payload.tenantId] : []),
    maxAgeMs: 60000,
  });
}

/** The key of one role's rules in the followed copies: tenant and role name. */
const ruleKey = (tenantId: string, role: string) => `${tenantId}\n${role}`;

/** Roles that never carry rules: the admin role passes every check; an admin's narrowed token acts with its own permissions. */
const WITHOUT_RULES = new Set(['admin', 'api-key', 'website-token']);

/**
 * The role whose rules limit the identity: its own, or for an API key its creator's (a key never does more than
 * its creator: an author's key keeps to the author's rules); null for roles without rules.
 */
function ruledRole(identity: Identity): string | null {
  const creator = identity.kind === 'apiKey' ? identity.meta?.creatorRole : identity.role;
  return typeof creator === 'string' && !WITHOUT_RULES.has(creator) ? creator : null;
}

/**
 * The rules of the identities' roles (kernel/access-rules.ts): put on every identity a resolver of this
 * plugin answers (HTTP and WebSocket alike), from copies kept a minute per tenant and role and dropped when
 * the role changes on any instance (ROLE_CHANGED). A failed read fails the request: an identity without
 * its rules would be allowed more than its role.
 */
export function roleRules(): {
  follow(rules: FollowedEach<string, AccessRule[]>): void;
  wrap(resolver: IdentityResolver): IdentityResolver;
} {
  let followed: FollowedEach<string, AccessRule[]> | null = null;
  const attach = async (identity: Identity): Promise<Identity> => {
    const role = ruledRole(identity);
    if (!role) return identity;
    if (!followed) throw new Error('role rules read before boot');
    let rules = await followed.get(ruleKey(identity.tenantId, role));
    // A key or token only narrows: a rule of the role limits it where its own permissions allow the action, never grants.
    if (identity.kind === 'apiKey' || identity.kind === 'websiteToken') {
      const held = (r: AccessRule) => (r.action === 'read' ? 'content:read' : 'content:write');
      rules = rules.filter(
        (r) =>
          identity.permissions.includes(held(r)) || (r.collection !== '*' && identity.permissions.includes(`${held(r)}:${r.collection}`)),
      );
    }
    return rules.length ? { ...identity, rules } : identity;
  };
  return {
    follow(rules) {
      followed = rules;
    },
    wrap(resolver) {
      return {
        ...resolver,
        async resolve(ctx: Context) {
          const identity = await resolver.resolve(ctx);
          return identity ? attach(identity) : null;
        },
      };
    },
  };
}

/** The rules per tenant and role, followed across instances (read with the `users` service). */
export function followedRoleRules(
  followEach: PluginBootContext['followEach'],
  users: { rulesOf(tenantId: string, role: string): Promise<AccessRule[]> },
): FollowedEach<string, AccessRule[]> {
  return followEach({
    name: 'role rules',
    load: (key: string) => {
      const [tenantId, role] = key.split('\n') as [string, string];
      return users.rulesOf(tenantId, role);
    },
    on: [ROLE_CHANGED],
    keysOf: (event: BusEvent<{ tenantId: string; role: string }>) =>
      typeof event.payload?.tenantId === 'string' && typeof event.payload.role === 'string'
        ? [ruleKey(event.payload.tenantId, event.payload.role)]
        : [],
    maxAgeMs: 60000,
    max: 10000,
  });
}
