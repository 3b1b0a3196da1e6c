import type { Context } from 'koa';
import { z } from 'zod';
import {
  AuthenticationRequiredError,
  ForbiddenError,
  NotFoundError,
  clearBrowserCookie,
  isAdmin,
  setBrowserCookie,
  defineRoute,
  type RouteDefinition,
} from '../../kernel/sdk.js';
import { assertCanGrant, requireSession } from './guards.js';
import { issuePendingLogin } from './pending-login.js';
import { clientIp, issueDeviceCookie, lockoutClient } from './lockout.js';
import type { AuthSecrets } from './secrets.js';
import type { EmailTokensService } from './email-tokens-service.js';
import type { SessionsService } from './sessions-service.js';
import type { User } from './models/user.js';
import { toPublicUser, type SignInNotes } from './users-service.js';
import { auditAuth, auditSignIn, auditSignInFailure, auditUnlock, userTarget } from './audit-events.js';

/** One session as GET /api/user/sessions answers it (session-views.ts builds it). */
export const sessionViewSchema = z.object({
  _id: z.string(),
  current: z.boolean(),
  userAgent: z.string(),
  ip: z.string(),
  device: z.string(),
  createdAt: z.string(),
  lastActiveAt: z.string(),
  expiresAt: z.string(),
});

export const SESSION_COOKIE = 'session';

const publicUser = z.object({ _id: z.string(), email: z.string(), username: z.string(), role: z.string() }).meta({ id: 'User' });

export { clientIp };

export function setSessionCookie(ctx: Context, token: string, expiresAt: number): void {
  setBrowserCookie(ctx, SESSION_COOKIE, token, expiresAt);
}

export function clearSessionCookie(ctx: Context): void {
  clearBrowserCookie(ctx, SESSION_COOKIE);
}

/**
 * After the first factor: the 2FA step when enabled (pending cookie), otherwise a session cookie.
 * `passwordProven`: the first factor was the password (the session opens the sudo-mode window).
 */
export async function completeSignIn(
  ctx: Context,
  scope: { authSecrets: AuthSecrets; sessions: SessionsService; emailTokens: EmailTokensService },
  user: User,
  passwordProven = false,
) {
  if (user.two_factor_enabled) {
    await issuePendingLogin(ctx, scope, user, passwordProven);
    return { requires2FA: true as const, userId: user.id };
  }
  const { token, session } = await scope.sessions.create(user, { userAgent: ctx.get('user-agent'), ip: clientIp(ctx) }, { passwordProven });
  setSessionCookie(ctx, token, Number(session.expires_at));
  await issueDeviceCookie(ctx, scope.authSecrets, user.id);
  return { user: toPublicUser(user) };
}

export const authRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    path: '/api/user/login',
    openDuring: ['maintenance', 'restore'],
    permission: 'public',
    summary: 'Sign in with email and password; sets the session cookie',
    description:
      'Unknown email and wrong password answer the same 401 INVALID_CREDENTIALS. Clients without a device cookie of the account (set by a completed sign-in on that browser) share one count: their 5th consecutive failure answers 401 and locks the account for unknown clients for 15 minutes; a known device counts on its own (5 failures lock that device only), so nobody without the cookie locks the owner out of their device. An email with no account is counted and locked the same way (same answers). While locked, attempts answer 403 ACCOUNT_LOCKED with retryAfterSeconds, before the password is checked; a magic link still signs in. With 2FA on, the answer is {requires2FA: true, userId} with no session cookie, and a short-lived cookie binds the pending sign-in to this client for POST /api/auth/2fa/verify.',
    tags: ['user'],
    rateLimit: { points: 30, durationSeconds: 60, clientPoints: 10 },
    request: { body: z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) }) },
    response: z.union([z.object({ user: publicUser }), z.object({ requires2FA: z.literal(true), userId: z.string() })]),
    async handler({ ctx, body, scope }) {
      const tenantId = await scope.tenants.fromHostname(ctx.hostname);
      const notes: SignInNotes = {};
      // A device cookie of this account makes the client a known one (its own count); else unknown.
      const client = await lockoutClient(ctx, scope, (await scope.users.findByEmail(body.email, tenantId))?.id ?? null);
      let user: User;
      try {
        user = await scope.users.authenticate(body.email, body.password, tenantId, notes, client.hash);
      } catch (err) {
        await auditSignInFailure(ctx, err, notes, tenantId, client.kind);
        throw err;
      } finally {
        for (const lockScope of notes.lockExpired ?? []) if (notes.user) await auditUnlock(ctx, notes.user, 'expired', lockScope);
      }
      const result = await completeSignIn(ctx, scope, user, true);
      await auditSignIn(ctx, user, 'password', result);
      return result;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/user/logout',
    openDuring: ['maintenance'],
    permission: 'authenticated',
    summary: 'Ends the current session everywhere and clears the cookie',
    tags: ['user'],
    request: {},
    response: z.object({ loggedOut: z.literal(true) }),
    async handler({ ctx, identity, scope }) {
      const hash = identity.meta?.sessionHash;
      if (typeof hash === 'string') await scope.sessions.revokeByHash(hash);
      clearSessionCookie(ctx);
      await auditAuth(ctx, {
        action: 'auth.sign-out',
        level: 'low',
        message: 'Signed out (the session ended)',
        ...(identity.userId ? { target: userTarget(identity.userId) } : {}),
        details: { sessionId: typeof identity.meta?.sessionId === 'string' ? identity.meta.sessionId : null },
      });
      return { loggedOut: true };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/user/me',
    openDuring: ['maintenance'],
    permission: 'authenticated',
    summary: 'The signed-in user',
    tags: ['user'],
    request: {},
    response: z.object({
      _id: z.string(),
      email: z.string(),
      username: z.string(),
      role: z.string(),
      permissions: z.array(z.string()),
      preferences: z.record(z.string(), z.unknown()),
      is2FAEnabled: z.boolean(),
    }),
    async handler({ identity, scope }) {
      const user = identity.userId ? await scope.users.findById(identity.userId) : null;
      if (!user) throw new AuthenticationRequiredError();
      return {
        ...toPublicUser(user),
        permissions: identity.permissions,
        preferences: JSON.parse(user.preferences),
        is2FAEnabled: user.two_factor_enabled,
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/user/create-user',
    permission: 'user:manage',
    summary: 'Creates a user (admins, or user:manage)',
    tags: ['user'],
    status: 201,
    request: {
      body: z.object({
        email: z.string().email().max(191),
        password: z.string().min(8, 'at least 8 characters').max(1024),
        role: z.string().min(1).max(64),
        username: z.string().min(1).max(191).optional(),
      }),
    },
    response: publicUser,
    async handler({ ctx, body, identity, scope }) {
      const users = scope.users;
      assertCanGrant(identity, body.role, await users.permissionsOf(body.role, identity.tenantId));
      const created = await users.create({ ...body, tenantId: identity.tenantId });
      await auditAuth(ctx, {
        action: 'auth.user.created',
        level: 'medium',
        message: `User ${created.email} created with role ${created.role}`,
        target: userTarget(created),
        details: { role: created.role },
      });
      return created;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/user/sessions',
    permission: 'authenticated',
    summary: "The caller's active sessions, the current one flagged (admins: ?admin=1&userId= for another user's)",
    tags: ['user'],
    request: { query: z.object({ admin: z.enum(['1']).optional(), userId: z.string().uuid().optional() }) },
    response: z.object({ sessions: z.array(sessionViewSchema) }),
    async handler({ identity, query, scope }) {
      requireSession(identity);
      const hash = typeof identity.meta?.sessionHash === 'string' ? identity.meta.sessionHash : null;
      if (query.admin) {
        if (!isAdmin(identity)) throw new ForbiddenError('Only admins may use admin=1');
        const user = query.userId ? await scope.users.findById(query.userId) : null;
        if (!user || user.tenant_id !== identity.tenantId) throw new NotFoundError('User not found');
        return { sessions: await scope.sessions.list(user.id, hash) };
      }
      if (!identity.userId) throw new AuthenticationRequiredError();
      return { sessions: await scope.sessions.list(identity.userId, hash) };
    },
  }),
];
