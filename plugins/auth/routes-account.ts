import { z } from 'zod';
import { ForbiddenError, NotFoundError, isAdmin, defineRoute, type RouteDefinition, optional } from '../../kernel/sdk.js';
import { InvalidCredentialsError, ReauthRequiredError } from './errors.js';
import { requireSession } from './guards.js';
import { clearSessionCookie, setSessionCookie } from './routes.js';
import { checkPassword, toPublicUser, type LockScope, type UsersService } from './users-service.js';
import { lockoutClient } from './lockout.js';
import type { AuthSecrets } from './secrets.js';

type LockoutScope = { users: UsersService; authSecrets: AuthSecrets; config?: { secrets: Record<string, string | undefined> } };
import { auditAuth, auditLockout, userTarget, who } from './audit-events.js';
import type { Context } from 'koa';

/** A wrong current password counts toward the lockout: recorded, and the lock when it is this one that locks. */
async function wrongPassword(ctx: Context, scope: LockoutScope, userId: string, via: string): Promise<never> {
  const users = scope.users;
  const client = await lockoutClient(ctx, scope, userId);
  const lockedNow = await users.recordFailure(userId, client.hash).catch((): LockScope[] => []);
  const user = await users.findById(userId);
  if (user) {
    await auditAuth(ctx, {
      action: 'auth.password.confirm-failed',
      level: 'medium',
      outcome: 'failure',
      message: `Wrong current password given by ${who(user)} (${via})`,
      target: userTarget(user),
      details: { via },
    });
    for (const lockScope of lockedNow) await auditLockout(ctx, user, via, lockScope);
  }
  throw new InvalidCredentialsError();
}

/** A BCP 47 language tag, loosely: en, de, pt-BR, ar-XB, zh-Hant-TW. */
const LOCALE_TAG = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8}){0,3}$/;
const sessionHashOf = (meta: Record<string, unknown> | undefined) => (typeof meta?.sessionHash === 'string' ? meta.sessionHash : null);

/** Session management (re-authentication, revocation, admin variants) and the user's own attributes. */
export const accountRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    path: '/api/user/sessions/reauth',
    permission: 'authenticated',
    summary: 'Confirms the current password; returns a proof for X-Reauth-Proof (5 minutes, bound to this session)',
    tags: ['user'],
    rateLimit: { points: 10, durationSeconds: 60 },
    request: { body: z.object({ password: z.string().min(1).max(1024) }) },
    response: z.object({ proof: z.string(), expiresAt: z.string() }),
    async handler({ ctx, body, identity, scope }) {
      requireSession(identity);
      const hash = sessionHashOf(identity.meta)!;
      const users = scope.users;
      // Guessing the password through re-authentication counts toward the lockout like a sign-in.
      if (!(await users.confirmPassword(identity.userId!, body.password)))
        await wrongPassword(ctx, scope, identity.userId!, 're-authentication');
      return scope.sessions.reauthProof(hash);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/user/change-password',
    permission: 'authenticated',
    summary: "Changes the signed-in user's password (the current one confirms it); every other session of theirs ends",
    description:
      'A wrong current password answers 401 INVALID_CREDENTIALS and counts toward the lockout like a sign-in; a new password under 8 characters is 400. This session stays signed in but is rotated: the answer sets a new session cookie (a new lifetime of SESSION_TTL_HOURS) and the previous cookie value stops working everywhere. With revokeTokens: true, every API key and website token of the user is revoked too (a password reset always does that).',
    tags: ['user'],
    rateLimit: { points: 10, durationSeconds: 60 },
    request: {
      body: z.object({
        currentPassword: z.string().min(1).max(1024),
        newPassword: z.string().min(8, 'at least 8 characters').max(1024),
        revokeTokens: z.boolean().optional(),
      }),
    },
    response: z.object({
      changed: z.literal(true),
      revokedSessions: z.number(),
      revokedApiKeys: z.number(),
      revokedWebsiteTokens: z.number(),
    }),
    async handler({ ctx, body, identity, scope }) {
      requireSession(identity);
      const users = scope.users;
      if (!(await users.confirmPassword(identity.userId!, body.currentPassword)))
        await wrongPassword(ctx, scope, identity.userId!, 'password change');
      checkPassword(body.newPassword);
      await users.setPassword(identity.userId!, body.newPassword);
      const currentHash = sessionHashOf(identity.meta);
      const revokedSessions = await scope.sessions.revokeAllForUser(identity.userId!, currentHash ?? undefined);
      // Rotation: a cookie copied before the change is worth nothing after it.
      const rotated = currentHash ? await scope.sessions.rotate(currentHash, { passwordProven: true }) : null;
      if (rotated) setSessionCookie(ctx, rotated.token, Number(rotated.session.expires_at));
      // revokeTokens: the API keys and website tokens minted with the old password go too.
      const revoked = body.revokeTokens
        ? await scope.tokens.revokeAllForUser(identity.userId!, 'password-changed')
        : { apiKeys: 0, websiteTokens: 0 };
      const user = await users.findById(identity.userId!);
      await auditAuth(ctx, {
        action: 'auth.password.changed',
        level: 'medium',
        message: `${user ? who(user) : 'A user'} changed their password; ${revokedSessions} other session(s) ended${body.revokeTokens ? `, ${revoked.apiKeys} API key(s) and ${revoked.websiteTokens} website token(s) revoked` : ''}`,
        target: userTarget(identity.userId!),
        details: { revokedSessions, revokedApiKeys: revoked.apiKeys, revokedWebsiteTokens: revoked.websiteTokens },
      });
      return { changed: true, revokedSessions, revokedApiKeys: revoked.apiKeys, revokedWebsiteTokens: revoked.websiteTokens };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/user/sessions/:sessionId',
    permission: 'authenticated',
    summary: 'Revokes one session everywhere',
    description:
      'Ending the current session needs nothing more; another of your sessions needs X-Reauth-Proof (403 REAUTH_REQUIRED otherwise); with ?admin=1 an admin revokes any session of the tenant without proof.',
    tags: ['user'],
    request: { params: z.object({ sessionId: z.string().uuid() }), query: z.object({ admin: z.enum(['1']).optional() }) },
    response: z.object({ revoked: z.literal(true) }),
    async handler({ ctx, params, query, identity, scope }) {
      requireSession(identity);
      const sessions = scope.sessions;
      const target = await sessions.findByPublicId(params.sessionId, identity.tenantId);
      if (query.admin) {
        if (!isAdmin(identity)) throw new ForbiddenError('Only admins may use admin=1');
        if (!target) throw new NotFoundError('Session not found');
      } else {
        if (!target || target.user_id !== identity.userId) throw new NotFoundError('Session not found');
        const current = sessionHashOf(identity.meta);
        if (target.id_hash !== current && !(current && (await sessions.verifyReauthProof(current, ctx.get('x-reauth-proof'))))) {
          throw new ReauthRequiredError();
        }
        if (target.id_hash === current) clearSessionCookie(ctx);
      }
      await sessions.revokeByHash(target.id_hash);
      const byOther = target.user_id !== identity.userId;
      const owner = await scope.users.findById(target.user_id);
      const revoker = byOther ? await scope.users.findById(identity.userId!) : owner;
      await auditAuth(ctx, {
        action: 'auth.session.revoked',
        level: byOther ? 'medium' : 'low',
        message: byOther
          ? `Session of ${owner ? who(owner) : target.user_id} revoked by ${revoker ? who(revoker) : identity.userId}`
          : `${owner ? who(owner) : target.user_id} revoked one of their sessions`,
        target: { type: 'session', id: params.sessionId },
        details: { sessionUserId: target.user_id, revokedBy: identity.userId, admin: Boolean(query.admin) },
      });
      return { revoked: true };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/user/update-user-attributes',
    permission: 'authenticated',
    summary: "Updates the caller's username and preferences (merged; e.g. preferences.theme)",
    tags: ['user'],
    request: {
      body: z
        .object({
          username: z.string().min(1).max(191).optional(),
          preferences: z.record(z.string().max(64), z.unknown()).optional(),
        })
        .refine((b) => JSON.stringify(b).length <= 64 * 1024, 'at most 64 KiB')
        // preferences.locale is the admin UI's language: a language tag (en, de, pt-BR) or null (the browser's).
        .refine(
          (b) => b.preferences?.locale == null || (typeof b.preferences.locale === 'string' && LOCALE_TAG.test(b.preferences.locale)),
          { message: 'preferences.locale is a language tag such as en, de or pt-BR, or null', path: ['preferences', 'locale'] },
        ),
    },
    async handler({ body, identity, scope }) {
      requireSession(identity);
      // preferences.theme is checked by the themes plugin when it is enabled (values, locked settings).
      const themePreferences = optional(scope, 'themePreferences');
      if (body.preferences?.theme !== undefined && themePreferences)
        await themePreferences.validate(identity.tenantId, body.preferences.theme);
      const user = await scope.users.updateAttributes(identity.userId!, body);
      return { ...toPublicUser(user), preferences: JSON.parse(user.preferences) };
    },
  }),
];
