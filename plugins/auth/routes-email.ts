import { z } from 'zod';
import { ValidationError, defineRoute, type RouteContext, type RouteDefinition, type RouteGate } from '../../kernel/sdk.js';
import { assertCanGrant, requireSudo } from './guards.js';
import { UserExistsError } from './errors.js';
import { assertDemoRoom } from './demo-limit.js';
import { completeSignIn, setSessionCookie, clientIp } from './routes.js';
import { checkPassword, toPublicUser } from './users-service.js';
import { lockoutClient } from './lockout.js';
import {
  auditAuth,
  auditRegistration,
  auditSignIn,
  auditUnlock,
  deferredAuthAudit,
  userTarget,
  who,
  type AuthAuditEvent,
} from './audit-events.js';
import type { EmailFlows } from './email-flows.js';
import type { User } from './models/user.js';

const SAME_ANSWER = 'If an account exists for this email, a link is on its way';
const email = z.string().email().max(191);
const tokenValue = z.string().min(20).max(128);
const signInResult = z.union([
  z.object({ user: z.object({ _id: z.string(), email: z.string(), username: z.string(), role: z.string() }) }),
  z.object({ requires2FA: z.literal(true), userId: z.string() }),
]);

type LinkRequest = (email: string, tenantId: string, onIssued: (user: User) => void) => void;

/**
 * POST of an email that mails a link to its account (public, 5 a minute): the answer is the same whether
 * or not the account exists, and the entry `action` is recorded only once a link was issued.
 */
function mailLinkRoute(def: {
  path: string;
  openDuring?: RouteGate[];
  summary: string;
  request: (flows: EmailFlows) => LinkRequest;
  action: AuthAuditEvent['action'];
  mailed: string;
}): RouteDefinition {
  return defineRoute({
    method: 'POST',
    path: def.path,
    ...(def.openDuring ? { openDuring: def.openDuring } : {}),
    permission: 'public',
    tags: ['user'],
    summary: def.summary,
    rateLimit: { points: 5, durationSeconds: 60 },
    request: { body: z.object({ email }) },
    response: z.object({ message: z.string() }),
    handler: async ({ ctx, body, scope }) => {
      const audit = await deferredAuthAudit(ctx);
      def.request(scope.emailFlows)(body.email, await scope.tenants.fromHostname(ctx.hostname), (user) =>
        audit({ action: def.action, level: 'low', message: `${def.mailed} mailed to ${who(user)}`, target: userTarget(user) }),
      );
      return { message: SAME_ANSWER };
    },
  });
}

/** Password reset, magic links, invitations and sign-up: single-use links sent by mail. */
export const emailRoutes: RouteDefinition[] = [
  mailLinkRoute({
    path: '/api/user/forgot-password',
    summary: 'Mails a password-reset link (1 hour, single use); answers the same whether or not the email exists',
    request: (flows) => flows.requestPasswordReset.bind(flows),
    action: 'auth.password-reset.issued',
    mailed: 'Password-reset link',
  }),
  defineRoute({
    method: 'POST',
    path: '/api/user/reset-password',
    permission: 'public',
    tags: ['user'],
    summary: 'Sets a new password with a reset token; ends every session of the user and revokes their API keys and website tokens',
    description:
      'The token is claimed atomically: of concurrent uses exactly one succeeds. 404 TOKEN_NOT_FOUND, 410 TOKEN_EXPIRED, 409 TOKEN_ALREADY_CONSUMED.',
    rateLimit: { points: 10, durationSeconds: 60 },
    request: { body: z.object({ token: tokenValue, password: z.string().min(8, 'at least 8 characters').max(1024) }) },
    response: z.object({ reset: z.literal(true) }),
    async handler({ ctx, body, scope }) {
      checkPassword(body.password); // a rejected password must not use up the link
      const row = await scope.emailTokens.claim('reset', body.token);
      const before = await scope.users.findById(row.user_id!);
      const clientLocks = await scope.users.clientLockCount(row.user_id!);
      await scope.users.setPassword(row.user_id!, body.password);
      const revokedSessions = await scope.sessions.revokeAllForUser(row.user_id!);
      // Whoever had the old password may have minted keys and tokens with it: they all go.
      const revokedBearers = await scope.tokens.revokeAllForUser(row.user_id!, 'password-changed');
      if (before) {
        const actor = { userId: before.id, tenantId: before.tenant_id };
        await auditAuth(ctx, {
          action: 'auth.password.reset',
          level: 'medium',
          message: `Password of ${who(before)} reset with a mailed link; ${revokedSessions} session(s) ended, ${revokedBearers.apiKeys} API key(s) and ${revokedBearers.websiteTokens} website token(s) revoked`,
          actor,
          target: userTarget(before),
          details: { revokedSessions, ...revokedBearers, linkId: row.id },
        });
        // A reset clears every lock of the account: the account-wide one and those of single clients.
        if (before.lockout_until !== null && Number(before.lockout_until) > Date.now()) await auditUnlock(ctx, before, 'password-reset');
        else if (clientLocks > 0) await auditUnlock(ctx, before, 'password-reset', 'client');
      }
      return { reset: true };
    },
  }),
  mailLinkRoute({
    path: '/api/user/magic-link',
    openDuring: ['maintenance'],
    summary: 'Mails a sign-in link (15 minutes, single use); answers the same whether or not the email exists',
    request: (flows) => flows.requestMagicLink.bind(flows),
    action: 'auth.magic-link.issued',
    mailed: 'Sign-in link',
  }),
  defineRoute({
    method: 'POST',
    path: '/api/user/magic-link/verify',
    openDuring: ['maintenance'],
    permission: 'public',
    tags: ['user'],
    summary: 'Signs in with a magic-link token (then the 2FA step if enabled), like POST /api/user/login',
    rateLimit: { points: 10, durationSeconds: 60 },
    request: { body: z.object({ token: tokenValue }) },
    response: signInResult,
    async handler({ ctx, body, scope }) {
      const row = await scope.emailTokens.claim('magic', body.token);
      const user = await scope.users.findById(row.user_id!);
      if (user)
        await auditAuth(ctx, {
          action: 'auth.magic-link.consumed',
          level: 'low',
          message: `Sign-in link of ${who(user)} used${user.blocked ? ' (account blocked: refused)' : ''}`,
          actor: { userId: user.id, tenantId: user.tenant_id },
          target: userTarget(user),
          details: { linkId: row.id },
        });
      if (!user || user.blocked) throw new ValidationError('This account cannot sign in');
      // A lockout (for this client or account-wide) does not refuse a magic link: the link proves control
      // of the mailbox, which is what a locked-out owner still has. A completed sign-in (no 2FA step due)
      // clears this client's count and the account's, like a password sign-in.
      const result = await completeSignIn(ctx, scope, user);
      if (!('requires2FA' in result)) {
        const client = await lockoutClient(ctx, scope, user.id);
        const accountLocked = user.lockout_until !== null && Number(user.lockout_until) > Date.now();
        const clientLocked = (await scope.users.lockedForSeconds(user.id, client.hash)) > 0 && !accountLocked;
        await scope.users.resetFailures(user.id, client.hash);
        if (accountLocked) await auditUnlock(ctx, user, 'magic-link', 'account');
        if (clientLocked) await auditUnlock(ctx, user, 'magic-link', 'client');
      }
      await auditSignIn(ctx, user, 'magic-link', result);
      return result;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/user/register',
    permission: 'public',
    tags: ['user'],
    status: 201,
    summary: 'Creates an account from an invitation token (its email and role) and signs in',
    rateLimit: { points: 10, durationSeconds: 60 },
    request: {
      body: z.object({
        token: tokenValue,
        password: z.string().min(8, 'at least 8 characters').max(1024),
        username: z.string().min(1).max(191).optional(),
      }),
    },
    response: z.object({ user: z.object({ _id: z.string(), email: z.string(), username: z.string(), role: z.string() }) }),
    async handler({ ctx, body, scope }) {
      const users = scope.users;
      const tokens = scope.emailTokens;
      // Checks that would fail after the claim run first, so a client mistake does not use up the invitation.
      checkPassword(body.password);
      const invitation = await tokens.peek('invite', body.token);
      if (await users.findByEmail(invitation.email, invitation.tenant_id)) throw new UserExistsError();
      await assertDemoRoom(scope, invitation.tenant_id);
      const row = await tokens.claim('invite', body.token);
      const created = await users.create({
        email: row.email,
        password: body.password,
        role: row.role!,
        username: body.username,
        tenantId: row.tenant_id,
      });
      const user = (await users.findById(created._id))!;
      const { token, session } = await scope.sessions.create(user, { userAgent: ctx.get('user-agent'), ip: clientIp(ctx) });
      setSessionCookie(ctx, token, Number(session.expires_at));
      return { user: toPublicUser(user) };
    },
  }),
];

const createInvite = z.object({
  email,
  role: z.string().min(1).max(64),
  expiresInHours: z
    .number()
    .min(0.1)
    .max(24 * 90)
    .default(72),
  sendEmail: z.boolean().default(false),
});

async function invite(route: RouteContext<unknown, unknown, z.output<typeof createInvite>>) {
  const { ctx, body, identity, scope } = route;
  // An invitation mints an account with a role: a session needs sudo mode (API keys with user:manage pass).
  await requireSudo(route, { bearers: 'pass' });
  const users = scope.users;
  if (!(await users.roleExists(body.role, identity.tenantId))) throw new ValidationError(`Unknown role '${body.role}'`);
  assertCanGrant(identity, body.role, await users.permissionsOf(body.role, identity.tenantId));
  const issued = await scope.emailFlows.invite({ ...body, tenantId: identity.tenantId, createdBy: identity.userId });
  await auditAuth(ctx, {
    action: 'auth.invitation.issued',
    level: 'medium',
    message: `Invitation issued for ${body.email.trim().toLowerCase()} as ${body.role}${body.sendEmail ? ' (mailed)' : ''}`,
    target: { type: 'invitation', id: null },
    details: { role: body.role, expiresAt: issued.expiresAt, mailed: body.sendEmail },
  });
  return issued;
}

const createInviteRoute = defineRoute({
  method: 'POST',
  idempotent: true,
  path: '/api/token/create-token',
  permission: 'user:manage',
  tags: ['tokens'],
  summary: 'Creates an invitation token for an email and role; the raw token is returned once (sendEmail mails it)',
  request: { body: createInvite },
  response: z.object({ token: z.string(), expiresAt: z.string() }),
  handler: invite,
});

const listInvitesRoute = defineRoute({
  method: 'GET',
  path: '/api/token/list',
  permission: 'user:manage',
  tags: ['tokens'],
  summary: 'Invitation tokens of the tenant (without their values) with status active, consumed or expired',
  request: {},
  handler: ({ identity, scope }) => scope.emailTokens.list('invite', identity.tenantId),
});

/** The same route under a second path (the spec names both). */
const aliasOf = (route: RouteDefinition, path: string): RouteDefinition => ({
  ...route,
  path,
  summary: `Same as ${route.method} ${route.path}`,
});

/** The spec's token endpoints (invitation tokens). */
export const invitationRoutes: RouteDefinition[] = [
  createInviteRoute,
  aliasOf(createInviteRoute, '/api/token'),
  listInvitesRoute,
  aliasOf(listInvitesRoute, '/api/token'),
  defineRoute({
    method: 'POST',
    path: '/api/token/resolve',
    permission: 'public',
    tags: ['tokens'],
    summary: 'Turns a raw invitation token into its metadata and user context, without using it',
    rateLimit: { points: 20, durationSeconds: 60 },
    request: { body: z.object({ token: tokenValue }) },
    async handler({ body, scope }) {
      const row = await scope.emailTokens.peek('invite', body.token);
      const existing = await scope.users.findByEmail(row.email, row.tenant_id);
      return {
        email: row.email,
        role: row.role,
        tenantId: row.tenant_id,
        expiresAt: new Date(Number(row.expires_at)).toISOString(),
        valid: true,
        userExists: existing !== null,
      };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/token/:id',
    permission: 'user:manage',
    tags: ['tokens'],
    summary: 'Revokes an invitation at once',
    request: { params: z.object({ id: z.string().uuid() }) },
    handler: async ({ ctx, params, identity, scope }) => {
      await scope.emailTokens.revoke('invite', params.id, identity.tenantId);
      await auditAuth(ctx, {
        action: 'auth.invitation.revoked',
        level: 'medium',
        message: 'Invitation revoked',
        target: { type: 'invitation', id: params.id },
      });
      return { revoked: true };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/token/:tokenValue',
    permission: 'public',
    tags: ['tokens'],
    summary:
      'Validates an invitation token publicly: {email, role, expiresAt, valid: true}; 404 TOKEN_NOT_FOUND, 410 TOKEN_EXPIRED, 409 TOKEN_ALREADY_CONSUMED',
    rateLimit: { points: 20, durationSeconds: 60 },
    request: { params: z.object({ tokenValue: z.string().min(1).max(128) }) },
    response: z.object({ email: z.string(), role: z.string().nullable(), expiresAt: z.string(), valid: z.literal(true) }),
    async handler({ params, scope }) {
      const row = await scope.emailTokens.peek('invite', params.tokenValue);
      return { email: row.email, role: row.role, expiresAt: new Date(Number(row.expires_at)).toISOString(), valid: true };
    },
  }),
];

// The sign-up's audit entries (invitation used, user created, signed in) wrap its handler.
for (const route of emailRoutes) if (route.path === '/api/user/register') auditRegistration(route);
