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
  const resolveValue = async (ctx: Context, raw: string): Promise<Identity> => {
    const identity = await cradle(ctx).tokens.resolveBearer(raw);
    if (!identity) {
      await auditRevokedUse(ctx, raw);
      throw new AuthenticationRequiredError('Invalid, revoked or expired bearer token');
    }
    return identity;
  };
  return {
    id: 'bearer',
    priority: 5,
    // No Authorization header (a guest, a cookie session): answered at once, without a promise.
    resolve(ctx: Context): Identity | null | Promise<Identity> {
      const header = ctx.get('authorization');
      if (!header) return null;
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      return match ? resolveValue(ctx, match[1]!) : null;
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
    // No Cookie header at all: answered at once, without parsing cookies or making a promise.
    resolve(ctx: Context): Identity | null | Promise<Identity | null> {
      if (!ctx.get('cookie')) return null;
      const token = ctx.cookies.get(SESSION_COOKIE);
      return token ? resolveSession(ctx, token) : null;
    },
  };
}

async function resolveSession(ctx: Context, token: string): Promise<Identity | null> {
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
}

/** What the guest resolver needs of the tenants service to answer without a promise. */
interface TenantsNow {
  fromHostnameNow(request: { readonly hostname: string }): string | undefined;
}

/**
 * Everyone else: the guest identity with the guest role's permissions (none until an admin grants some),
 * kept a minute per tenant once boot connected the followed copies (`follow`: GUEST_GRANTS_CHANGED from
 * any instance drops a tenant's copy; a read that ran across the change answers once but is not kept).
 * While the tenant's grants are held (and its hostname, with MULTI_TENANT), the guest is answered at once
 * and is the same frozen object for every request of that tenant until its grants change.
 */
export function guestResolver(): IdentityResolver & { follow(grants: FollowedEach<string, string[]>, tenants?: TenantsNow): void } {
  let grants: FollowedEach<string, string[]> | null = null;
  let tenantsNow: TenantsNow | null = null;
  // Per tenant, the guest last made (bounded: one per tenant of the grants' copies, cleared past 10,000).
  const made = new Map<string, Identity>();
  const guestOf = (tenantId: string, permissions: string[]): Identity => {
    const last = made.get(tenantId);
    if (last && last.permissions === permissions) return last;
    if (made.size >= 10000) made.clear();
    const guest: Identity = Object.freeze({ kind: 'guest', userId: null, role: 'guest', permissions, tenantId });
    made.set(tenantId, guest);
    return guest;
  };
  const read = async (ctx: Context): Promise<Identity | null> => {
    let tenantId: string;
    let permissions: string[];
    try {
      tenantId = await cradle(ctx).tenants.fromHostname(ctx.hostname);
      permissions = grants ? await grants.get(tenantId) : await cradle(ctx).users.permissionsOf('guest', tenantId);
    } catch {
      return null; // still booting: the kernel's permissionless guest applies
    }
    return { kind: 'guest', userId: null, role: 'guest', permissions, tenantId };
  };
  return {
    follow(followed, tenants) {
      grants = followed;
      tenantsNow = tenants ?? null;
    },
    id: 'guest-role',
    priority: 1000,
    resolve(ctx: Context): Identity | null | Promise<Identity | null> {
      const tenantId = tenantsNow?.fromHostnameNow(ctx);
      const permissions = tenantId === undefined ? undefined : grants?.peek(tenantId);
      return permissions ? guestOf(tenantId!, permissions) : read(ctx);
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
  // A shared guest (guestResolver) with its role's rules, the same object while neither changes.
  const guests = new WeakMap<Identity, { all: readonly AccessRule[]; result: Identity }>();
  const withRules = (identity: Identity, all: AccessRule[]): Identity => {
    let rules = all;
    // A key or token only narrows: a rule of the role limits it where its own permissions allow the action, never grants.
    if (identity.kind === 'apiKey' || identity.kind === 'websiteToken') {
      const held = (r: AccessRule) => (r.action === 'read' ? 'content:read' : 'content:write');
      rules = rules.filter(
        (r) =>
          identity.permissions.includes(held(r)) || (r.collection !== '*' && identity.permissions.includes(`${held(r)}:${r.collection}`)),
      );
    }
    if (!rules.length) return identity;
    if (!Object.isFrozen(identity)) return { ...identity, rules };
    const last = guests.get(identity);
    if (last && last.all === all) return last.result;
    const result: Identity = Object.freeze({ ...identity, rules });
    guests.set(identity, { all, result });
    return result;
  };
  // Without a promise when the role has no rules or its rules are held.
  const attach = (identity: Identity): Identity | null | Promise<Identity> => {
    const role = ruledRole(identity);
    if (!role) return identity;
    if (!followed) {
      // Before boot: a guest is the kernel's permissionless one (null: no resolver answered); anyone else fails.
      if (identity.kind === 'guest') return null;
      throw new Error('role rules read before boot');
    }
    const key = ruleKey(identity.tenantId, role);
    const held = followed.peek(key);
    return held ? withRules(identity, held) : followed.get(key).then((rules) => withRules(identity, rules));
  };
  return {
    follow(rules) {
      followed = rules;
    },
    wrap(resolver) {
      return {
        ...resolver,
        resolve(ctx: Context) {
          const found = resolver.resolve(ctx);
          if (found instanceof Promise) return found.then((identity) => (identity ? attach(identity) : null));
          return found ? attach(found) : null;
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
